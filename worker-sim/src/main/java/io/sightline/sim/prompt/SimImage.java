package io.sightline.sim.prompt;

/**
 * One image of a request as the engine sees it.
 *
 * @param identifier vLLM's item identifier: the caller's uuid when given, else the engine's own
 *     hash of the image (64 hex)
 * @param digest 32-byte content digest (TRT-LLM mm key; vLLM stand-in for its blake3 mm_hash)
 * @param width pixels
 * @param height pixels
 */
public record SimImage(String identifier, byte[] digest, int width, int height) {}

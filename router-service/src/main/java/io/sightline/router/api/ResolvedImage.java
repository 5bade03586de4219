package io.sightline.router.api;

/**
 * One image of the request, already resolved by the gateway (the router never downloads media).
 *
 * @param mmHash the image's 64-bit identity ({@code io.sightline.routing.multimodal.MmHashes})
 * @param width width in pixels from the image header
 * @param height height in pixels from the image header
 */
public record ResolvedImage(long mmHash, int width, int height) {}

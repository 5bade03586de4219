package io.sightline.routing.expansion;

/** One image of a request, in prompt order: its mm_hash and its number of image tokens. */
public record ImageSlot(long mmHash, int numTokens) {}

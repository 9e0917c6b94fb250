package dev.inferd.server.store;

/** An account: owns keys, users and usage. {@code rateLimit} in requests per second, null for the default. */
public record Account(String id, String name, Integer rateLimit, long createdAt) {
}

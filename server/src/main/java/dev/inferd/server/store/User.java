package dev.inferd.server.store;

/** A person who signs in to an account's dashboard; {@code passwordHash} is a bcrypt hash. */
public record User(String id, String accountId, String email, String passwordHash, long createdAt) {
}

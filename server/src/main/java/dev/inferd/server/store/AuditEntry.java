package dev.inferd.server.store;

/**
 * One change in an account: who ({@code actor}: a user's e-mail, {@code operator}, {@code cli:USER}), what
 * ({@code action} on {@code target}, with {@code detail}), when ({@code at}, epoch ms) and from where
 * ({@code source}: an address, or {@code cli}).
 */
public record AuditEntry(String id, String accountId, String actor, String action, String target, String detail,
                         String source, long at) {
}

package dev.inferd.server.cloud.auth;

/** Who makes a change and from where, for the audit log: {@code ("ana@example.com", "203.0.113.7")}, {@code ("operator", "cli")}. */
public record Actor(String who, String from) {

    public static Actor cli() {
        return new Actor("cli:" + System.getProperty("user.name", "unknown"), "cli");
    }
}

package dev.inferd.engine.generate;

/** One message of a conversation as the chat template sees it. */
public record ChatMessage(String role, String content) {
}

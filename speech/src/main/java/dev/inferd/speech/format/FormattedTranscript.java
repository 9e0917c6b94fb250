package dev.inferd.speech.format;

/** A response body and its content type. */
public record FormattedTranscript(String contentType, String body) {
}

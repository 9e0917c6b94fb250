package dev.inferd.server.openai;

/** The error body every endpoint sends: all four keys present, {@code param} null when not applicable. */
public record ErrorBody(Detail error) {

    /** {@code code} is the HTTP status as an integer, as the seed contract says. */
    public record Detail(String message, String type, String param, int code) {
    }
}

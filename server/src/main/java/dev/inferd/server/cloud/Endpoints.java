package dev.inferd.server.cloud;

/** The endpoint names that key scopes list: {@code chat.completions}, {@code completions}, {@code models}, ... */
public final class Endpoints {

    public static final String MODELS = "models";
    /** Anthropic's Messages API, token counting included. */
    public static final String MESSAGES = "messages";
    public static final String RESPONSES = "responses";

    private Endpoints() {
    }

    /** The endpoint a {@code /v1/...} path belongs to: its path after {@code /v1/}, with dots for slashes. */
    public static String of(String path) {
        String rest = path.startsWith("/v1/") ? path.substring(4) : path;
        if (rest.equals(MODELS) || rest.startsWith(MODELS + "/")) return MODELS;
        if (rest.equals(MESSAGES) || rest.startsWith(MESSAGES + "/")) return MESSAGES;
        // A kept response's routes (/v1/responses/{id}, .../input_items) are the responses endpoint's.
        if (rest.equals(RESPONSES) || rest.startsWith(RESPONSES + "/")) return RESPONSES;
        return rest.replace('/', '.');
    }
}

package dev.inferd.server.openai;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;

/** The request fields chat and legacy completions share: sampling, stop, n, streaming. */
final class CommonFields {

    static final int MAX_N = 128;
    static final int MAX_STOP = 4;

    private CommonFields() {
    }

    static SamplingFields sampling(Fields f) {
        float temperature = f.number("temperature", 0, 2).orElse(1.0).floatValue();
        float topP = f.number("top_p", 0, 1).orElse(1.0).floatValue();
        Long seed = f.integer("seed", Long.MIN_VALUE, Long.MAX_VALUE).orElse(null);
        float presence = f.number("presence_penalty", -2, 2).orElse(0.0).floatValue();
        float frequency = f.number("frequency_penalty", -2, 2).orElse(0.0).floatValue();
        return new SamplingFields(temperature, topP, seed, presence, frequency, logitBias(f));
    }

    static Map<Integer, Float> logitBias(Fields f) {
        return f.node("logit_bias").map(node -> {
            if (!node.isObject()) throw ApiError.invalidType("logit_bias", "an object", Fields.describe(node));
            Map<Integer, Float> bias = new HashMap<>();
            for (Entry<String, JsonNode> e : node.properties()) {
                String path = "logit_bias." + e.getKey();
                int token;
                try {
                    token = Integer.parseInt(e.getKey());
                } catch (NumberFormatException ex) {
                    token = -1;
                }
                if (token < 0) {
                    throw ApiError.invalid("logit_bias", "Invalid key in 'logit_bias': '" + e.getKey()
                            + "' is not a token id (a non-negative integer written as a string).");
                }
                JsonNode v = e.getValue();
                if (!v.isNumber()) throw ApiError.invalidType(path, "a number", Fields.describe(v));
                double d = v.doubleValue();
                if (!(d >= -100 && d <= 100)) {
                    throw ApiError.invalid("logit_bias", "Invalid value for '" + path
                            + "': must be between -100 and 100, but got " + v.asText() + ".");
                }
                bias.put(token, (float) d);
            }
            return Map.copyOf(bias);
        }).orElse(Map.of());
    }

    /** {@code stop}: a string or an array of 1 to 4 non-empty strings. */
    static List<String> stop(Fields f) {
        return f.node("stop").map(node -> {
            List<String> stops = new ArrayList<>();
            if (node.isTextual()) {
                stops.add(node.textValue());
            } else if (node.isArray()) {
                if (node.isEmpty() || node.size() > MAX_STOP) {
                    throw ApiError.invalid("stop", "Invalid value for 'stop': expected a string or an array of 1 to "
                            + MAX_STOP + " strings, but got an array of " + node.size() + ".");
                }
                for (int i = 0; i < node.size(); i++) {
                    JsonNode s = node.get(i);
                    if (!s.isTextual()) throw ApiError.invalidType("stop[" + i + "]", "a string", Fields.describe(s));
                    stops.add(s.textValue());
                }
            } else {
                throw ApiError.invalidType("stop", "a string or an array of strings", Fields.describe(node));
            }
            if (stops.stream().anyMatch(String::isEmpty)) {
                throw ApiError.invalid("stop", "Invalid value for 'stop': stop sequences must not be empty strings.");
            }
            return List.copyOf(stops);
        }).orElse(List.of());
    }

    static int n(Fields f) {
        return f.intValue("n", 1, MAX_N).orElse(1);
    }

    /** {@code stream_options.include_usage}; checked always, only meaningful when streaming. */
    static boolean includeUsage(Fields f) {
        return f.node("stream_options")
                .map(node -> Fields.ofObject(node, "stream_options").bool("include_usage", false))
                .orElse(false);
    }
}

package dev.inferd.server.openai;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/** Turns a legacy completion request body into a {@link CompletionRequest}, or a 400 that names the field. */
public final class CompletionRequestParser {

    static final int DEFAULT_MAX_TOKENS = 16;
    private static final int MAX_LOGPROBS = 5;
    private static final int MAX_BEST_OF = 20;

    private CompletionRequestParser() {
    }

    public static CompletionRequest parse(JsonNode body) {
        Fields f = Fields.ofBody(body);
        String model = f.requiredString("model");
        List<String> prompts = prompts(f.required("prompt"));
        f.string("suffix").filter(s -> !s.isEmpty()).ifPresent(s -> {
            throw ApiError.unsupported("suffix", "'suffix' (insertion) is not supported by this server.");
        });

        boolean stream = f.bool("stream", false);
        boolean includeUsage = CommonFields.includeUsage(f) && stream;
        Integer givenMaxTokens = f.intValue("max_tokens", 0, Integer.MAX_VALUE).orElse(null);
        int maxTokens = givenMaxTokens == null ? DEFAULT_MAX_TOKENS : givenMaxTokens;
        int n = CommonFields.n(f);
        f.intValue("best_of", 1, MAX_BEST_OF).ifPresent(bestOf -> {
            if (bestOf < n) {
                throw ApiError.invalid("best_of", "Invalid value for 'best_of': must be at least 'n' (" + n
                        + "), but got " + bestOf + ".");
            }
            if (bestOf > n) {
                throw ApiError.unsupported("best_of",
                        "'best_of' greater than 'n' is not supported by this server; leave it out or set it equal to 'n'.");
            }
        });
        boolean echo = f.bool("echo", false);
        int logprobs = f.intValue("logprobs", 0, MAX_LOGPROBS).orElse(-1);
        if (echo && logprobs >= 0) {
            throw ApiError.unsupported("logprobs",
                    "'logprobs' together with 'echo' is not supported by this server yet (prompt log-probabilities).");
        }
        return new CompletionRequest(model, prompts, stream, includeUsage, CommonFields.sampling(f), maxTokens,
                givenMaxTokens != null,
                CommonFields.stop(f), n, echo, logprobs, StructuredOutputFields.responseFormat(f),
                StructuredOutputFields.freeJsonLayout(f));
    }

    private static List<String> prompts(JsonNode node) {
        if (node.isTextual()) return List.of(node.textValue());
        if (!node.isArray()) {
            throw ApiError.invalidType("prompt", "a string or an array of strings", Fields.describe(node));
        }
        if (node.isEmpty()) {
            throw ApiError.invalid("prompt", "Invalid 'prompt': empty array. Expected at least one prompt.");
        }
        List<String> prompts = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            JsonNode p = node.get(i);
            if (p.isTextual()) {
                prompts.add(p.textValue());
            } else if (p.isIntegralNumber() || p.isArray()) {
                throw ApiError.unsupported("prompt", "Prompts given as token ids are not supported by this server yet; "
                        + "send the prompt as a string or an array of strings.");
            } else {
                throw ApiError.invalidType("prompt[" + i + "]", "a string", Fields.describe(p));
            }
        }
        return prompts;
    }
}

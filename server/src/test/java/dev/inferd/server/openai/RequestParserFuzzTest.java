package dev.inferd.server.openai;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import dev.inferd.engine.FuzzBudget;
import net.jqwik.api.Provide;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bounded property-based fuzzing of the request parsers: whatever bytes or JSON come in, parsing
 * either succeeds or throws {@link ApiError} with a 4xx, never anything else. The tries are a short
 * budget in {@code ./test}; {@code -Dinferd.fuzz.factor=N} multiplies them (see {@link FuzzBudget}).
 */
@AddLifecycleHook(FuzzBudget.class)
class RequestParserFuzzTest {

    private static final List<String> FIELDS = List.of("model", "messages", "prompt", "stream", "stream_options",
            "temperature", "top_p", "n", "stop", "max_tokens", "max_completion_tokens", "seed", "presence_penalty",
            "frequency_penalty", "logit_bias", "logprobs", "top_logprobs", "tools", "tool_choice", "response_format",
            "echo", "best_of", "suffix", "role", "content", "type", "text", "include_usage", "functions",
            "function_call", "modalities", "tool_call_id", "tool_calls");

    @Property(tries = 300)
    void arbitraryBytesAreParsedOrRefusedWith4xx(@ForAll byte[] body) {
        assertParsesOrRefuses(body);
    }

    @Property(tries = 800)
    void arbitraryJsonIsParsedOrRefusedWith4xx(@ForAll("requests") String json) {
        assertParsesOrRefuses(json.getBytes(StandardCharsets.UTF_8));
    }

    private static void assertParsesOrRefuses(byte[] body) {
        for (int endpoint = 0; endpoint < 2; endpoint++) {
            try {
                var node = WireJson.parse(body);
                if (endpoint == 0) ChatRequestParser.parse(node);
                else CompletionRequestParser.parse(node);
            } catch (ApiError e) {
                assertThat(e.status()).isBetween(400, 499);
                assertThat(e.getMessage()).isNotBlank();
            }
        }
    }

    @Provide
    Arbitrary<String> requests() {
        return object(3);
    }

    /** JSON objects whose keys are mostly the requests' own field names, nested up to {@code depth}. */
    private static Arbitrary<String> object(int depth) {
        Arbitrary<String> key = Arbitraries.oneOf(Arbitraries.of(FIELDS),
                Arbitraries.strings().ofMaxLength(6));
        Arbitrary<String> entry = net.jqwik.api.Combinators.combine(key, value(depth))
                .as((k, v) -> quote(k) + ":" + v);
        return entry.list().ofMaxSize(8).map(entries -> "{" + String.join(",", entries) + "}");
    }

    private static Arbitrary<String> value(int depth) {
        Arbitrary<String> scalar = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(12).map(RequestParserFuzzTest::quote),
                Arbitraries.of("user", "assistant", "system", "tool", "developer", "function", "text", "image_url",
                        "auto", "none", "json_object", "fake-model").map(RequestParserFuzzTest::quote),
                Arbitraries.integers().map(String::valueOf),
                Arbitraries.longs().map(String::valueOf),
                Arbitraries.doubles().map(String::valueOf).filter(d -> !d.contains("N") && !d.contains("I")),
                Arbitraries.of("true", "false", "null", "1e400", "-0", "123456789012345678901234567890"));
        if (depth == 0) return scalar;
        Arbitrary<String> array = value(depth - 1).list().ofMaxSize(4).map(items -> "[" + String.join(",", items) + "]");
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, scalar),
                net.jqwik.api.Tuple.of(2, array),
                net.jqwik.api.Tuple.of(2, Arbitraries.lazy(() -> object(depth - 1))));
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }
}

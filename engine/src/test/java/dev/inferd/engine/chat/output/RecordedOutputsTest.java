package dev.inferd.engine.chat.output;

import dev.inferd.engine.chat.jinja.JsonReader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Model outputs as each family writes them (resources {@code output/*.txt}: the output and the
 * expected content, reasoning and calls), fed whole, a character at a time, with markers as control
 * tokens, and cut at random places. Every way gives the same result, the streamed pieces add up to
 * it, and no marker reaches the content.
 */
class RecordedOutputsTest {
    private static final List<String> MARKERS = List.of("<tool_call>", "</tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "<think>", "</think>");

    @ParameterizedTest
    @ValueSource(strings = {
            "llama3-json-call", "llama3-typed-call", "llama3-two-calls", "llama3-python-tag-builtin",
            "llama3-python-tag-json", "llama3-python-tag-code", "llama3-content", "llama3-json-answer",
            "hermes-one-call", "hermes-parallel", "hermes-content-then-call", "hermes-tricky-strings",
            "hermes-string-arguments", "hermes-arguments-first", "hermes-not-a-call",
            "qwen3-think-then-call", "qwen3-think-then-answer", "qwen3-no-think",
            "deepseek-r1-opened-by-prompt", "deepseek-r1-cut-while-thinking", "deepseek-r1-repeats-think", "deepseek-r1-thinks-about-tags",
            "mistral-one-call", "mistral-parallel-with-ids", "mistral-content-then-call",
            "generic-list", "generic-pretty-two-calls", "generic-bare-call", "generic-content", "generic-after-thinking",
            "generic-fenced", "generic-fenced-answer", "llama3-not-a-name", "hermes-text-after-call"})
    void parsesTheSameHoweverTheOutputIsCut(String name) throws IOException {
        Map<String, List<String>> sections = sections(name);
        String output = sections.get("output").getFirst();
        ToolCallFormat format = sections.keySet().stream().filter(k -> k.startsWith("format "))
                .map(k -> ToolCallFormat.valueOf(k.substring(7))).findFirst().orElse(null);
        String reasoningMode = sections.containsKey("reasoning on") ? "on" : sections.containsKey("reasoning opened") ? "opened" : "off";
        String content = sections.containsKey("content") ? sections.get("content").getFirst() : null;
        String reasoning = sections.containsKey("reasoning") ? sections.get("reasoning").getFirst() : null;
        List<String[]> calls = new ArrayList<>();
        sections.forEach((k, v) -> {
            if (k.startsWith("call ")) {
                v.forEach(args -> calls.add(new String[] {k.substring(5), args}));
            }
        });

        List<List<String>> cuts = new ArrayList<>();
        cuts.add(List.of(output));
        cuts.add(output.chars().mapToObj(c -> String.valueOf((char) c)).toList());
        for (int seed = 0; seed < 8; seed++) {
            cuts.add(randomCut(output, new Random(seed)));
        }
        for (List<String> pieces : cuts) {
            boolean oneCharacterAtATime = pieces.size() == output.length();
            for (boolean markersAsControlTokens : new boolean[] {false, true}) {
                var recorder = new Recording();
                var parser = new ChatOutputParser(format, !reasoningMode.equals("off"), reasoningMode.equals("opened"), recorder);
                boolean sawOpenCall = false;
                for (String piece : markersAsControlTokens ? byMarkers(pieces) : pieces) {
                    if (markersAsControlTokens && MARKERS.contains(piece)) {
                        parser.acceptControlToken(piece);
                    } else {
                        parser.accept(piece);
                    }
                    sawOpenCall |= parser.openCall() != null;
                }
                parser.finish();
                ParsedOutput result = parser.result();
                String where = name + " cut in " + pieces.size() + " pieces" + (markersAsControlTokens ? ", markers as control tokens" : "");

                assertThat(result.content()).as(where).isEqualTo(content);
                assertThat(result.reasoning()).as(where).isEqualTo(reasoning);
                assertThat(result.toolCalls()).as(where).hasSize(calls.size());
                for (int i = 0; i < calls.size(); i++) {
                    ParsedToolCall call = result.toolCalls().get(i);
                    assertThat(call.name()).as(where).isEqualTo(calls.get(i)[0]);
                    assertThat(call.arguments()).as(where).isEqualTo(calls.get(i)[1]);
                    assertThat(call.complete()).as(where).isTrue();
                    assertThat(JsonReader.parse(call.arguments())).as(where).isInstanceOf(Map.class);
                    assertThat(recorder.arguments.get(i).toString()).as(where).isEqualTo(call.arguments());
                }
                assertThat(recorder.names).as(where).containsExactlyElementsOf(calls.stream().map(c -> c[0]).toList());
                assertThat(recorder.content.toString()).as(where).isEqualTo(content == null ? recorder.content.toString() : content);
                assertThat(recorder.reasoning.toString()).as(where).isEqualTo(reasoning == null ? "" : reasoning);
                if (oneCharacterAtATime && !calls.isEmpty()) {
                    assertThat(sawOpenCall).as(where + ": a call was seen open").isTrue();
                }
                for (String marker : MARKERS) {
                    if (!name.equals("hermes-not-a-call")) {
                        assertThat(recorder.content.toString()).as(where).doesNotContain(marker);
                    }
                }
                assertThat(recorder.argumentsBeforeStart).as(where).isFalse();
                assertThat(recorder.emptyPiece).as(where + ": an empty piece").isFalse();
                assertThat(recorder.outOfOrder).as(where + ": calls numbered out of order").isFalse();
            }
        }
    }

    private static List<String> randomCut(String s, Random random) {
        List<String> pieces = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            int n = 1 + random.nextInt(7);
            pieces.add(s.substring(i, Math.min(s.length(), i + n)));
            i += n;
        }
        return pieces;
    }

    /** The pieces re-cut so that each marker is a piece of its own (a control token), the rest as before. */
    private static List<String> byMarkers(List<String> pieces) {
        String all = String.join("", pieces);
        List<String> out = new ArrayList<>();
        int pos = 0;
        int boundary = 0;
        List<Integer> ends = new ArrayList<>();
        for (String p : pieces) {
            boundary += p.length();
            ends.add(boundary);
        }
        var current = new StringBuilder();
        while (pos < all.length()) {
            String marker = null;
            for (String m : MARKERS) {
                if (all.startsWith(m, pos)) {
                    marker = m;
                }
            }
            if (marker != null) {
                if (!current.isEmpty()) {
                    out.add(current.toString());
                    current.setLength(0);
                }
                out.add(marker);
                pos += marker.length();
                continue;
            }
            current.append(all.charAt(pos++));
            if (ends.contains(pos)) {
                out.add(current.toString());
                current.setLength(0);
            }
        }
        if (!current.isEmpty()) {
            out.add(current.toString());
        }
        return out;
    }

    /** Sections {@code === name} of a resource; a section's text ends before the newline that precedes the next one. */
    private static Map<String, List<String>> sections(String name) throws IOException {
        String text;
        try (InputStream in = RecordedOutputsTest.class.getResourceAsStream(name + ".txt")) {
            assertThat(in).as(name).isNotNull();
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Map<String, List<String>> sections = new LinkedHashMap<>();
        String header = null;
        var body = new StringBuilder();
        for (String line : (text.endsWith("\n") ? text : text + "\n").split("\n", -1)) {
            if (line.startsWith("=== ")) {
                if (header != null) {
                    sections.computeIfAbsent(header, k -> new ArrayList<>()).add(body.substring(0, Math.max(0, body.length() - 1)));
                }
                header = line.substring(4);
                body.setLength(0);
            } else {
                body.append(line).append('\n');
            }
        }
        // the split leaves one empty element after the final newline
        body.setLength(Math.max(0, body.length() - 1));
        sections.computeIfAbsent(header, k -> new ArrayList<>()).add(body.substring(0, Math.max(0, body.length() - 1)));
        return sections;
    }

    static final class Recording implements OutputListener {
        final StringBuilder content = new StringBuilder();
        final StringBuilder reasoning = new StringBuilder();
        final List<String> names = new ArrayList<>();
        final List<StringBuilder> arguments = new ArrayList<>();
        boolean argumentsBeforeStart;
        boolean emptyPiece;
        boolean outOfOrder;

        @Override
        public void content(String text) {
            emptyPiece |= text.isEmpty();
            content.append(text);
        }

        @Override
        public void reasoning(String text) {
            emptyPiece |= text.isEmpty();
            reasoning.append(text);
        }

        @Override
        public void toolCallStarted(int index, String name) {
            outOfOrder |= index != names.size();
            names.add(name);
            arguments.add(new StringBuilder());
        }

        @Override
        public void toolCallArguments(int index, String fragment) {
            if (index >= arguments.size()) {
                argumentsBeforeStart = true;
                return;
            }
            emptyPiece |= fragment.isEmpty();
            arguments.get(index).append(fragment);
        }
    }
}

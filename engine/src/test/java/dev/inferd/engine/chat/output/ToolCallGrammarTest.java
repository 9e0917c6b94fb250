package dev.inferd.engine.chat.output;

import com.networknt.schema.InputFormat;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.inferd.engine.grammar.Grammar;
import dev.inferd.engine.grammar.GrammarConstraint;
import dev.inferd.engine.grammar.TokenVocabulary;
import dev.inferd.engine.grammar.json.GrammarCache;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import dev.inferd.engine.grammar.json.JsonText;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tool calls in each format's own syntax: forced from the first token, or from the marker on in a
 * free reply; decoded with random choices among the allowed tokens, every output parses back into
 * calls of the declared functions whose arguments follow their schemas.
 */
class ToolCallGrammarTest {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final GrammarCache CACHE = new GrammarCache(16, JsonSchemaCompiler.Options.FREE_LAYOUT);
    private static final Map<String, Object> WEATHER = Map.of("type", "object",
            "properties", Map.of("city", Map.of("type", "string", "maxLength", 8), "unit", Map.of("enum", List.of("c", "f"))),
            "required", List.of("city", "unit"), "additionalProperties", false);
    private static final Map<String, Object> TIME = Map.of("type", "object",
            "properties", Map.of("zone", Map.of("enum", List.of("UTC", "CET"))), "required", List.of("zone"),
            "additionalProperties", false);
    private static final List<ToolCallGrammar.Tool> TOOLS = List.of(new ToolCallGrammar.Tool("get_weather", WEATHER),
            new ToolCallGrammar.Tool("get_time", TIME));

    // Tokens: 0..254 single bytes, then words, then the special markers, then end of generation.
    private static final List<String> WORDS = List.of("<tool", "_call>", "</tool_call>", "{\"", "\":", "\"name\"",
            "get_weather", "get_time", "arguments", "parameters", "Sure", " thing");
    private static final List<String> SPECIALS = List.of("<|python_tag|>", "[TOOL_CALLS]", "<tool_call>", "</tool_call>");
    private static final int FIRST_WORD = 255;
    private static final int FIRST_SPECIAL = FIRST_WORD + WORDS.size();
    private static final int EOS = FIRST_SPECIAL + SPECIALS.size();
    private static final TokenVocabulary VOCABULARY = vocabulary();

    private static TokenVocabulary vocabulary() {
        byte[][] bytes = new byte[EOS + 1][];
        for (int b = 0; b < 255; b++) bytes[b] = new byte[] {(byte) b};
        for (int i = 0; i < WORDS.size(); i++) bytes[FIRST_WORD + i] = WORDS.get(i).getBytes(StandardCharsets.UTF_8);
        Map<Integer, String> specials = new java.util.HashMap<>();
        for (int i = 0; i < SPECIALS.size(); i++) specials.put(FIRST_SPECIAL + i, SPECIALS.get(i));
        return TokenVocabulary.of(bytes, new int[] {EOS}, specials);
    }

    private static String text(int token) {
        if (token >= FIRST_SPECIAL) return SPECIALS.get(token - FIRST_SPECIAL);
        if (token >= FIRST_WORD) return WORDS.get(token - FIRST_WORD);
        return new String(new byte[] {(byte) token}, StandardCharsets.ISO_8859_1);
    }

    private static int[] tokensOf(String text) {
        List<Integer> out = new ArrayList<>();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) out.add(b & 0xFF);
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Decodes under {@code constraint} after {@code script}, choosing at random; the output as the parser reads it. */
    private static ParsedOutput decode(ToolCallFormat format, GrammarConstraint constraint, int[] script, long seed) {
        var random = new SplittableRandom(seed);
        var parser = new ChatOutputParser(format, false, false, OutputListener.NONE);
        var pending = new ByteArrayOutputStream();
        List<Integer> tokens = new ArrayList<>();
        for (int t : script) tokens.add(t);
        for (int step = 0; step < 400; step++) {
            float[] logits = new float[EOS + 1];
            constraint.mask(logits);
            int token;
            if (step < tokens.size()) {
                token = tokens.get(step);
                assertThat(logits[token]).as("scripted token %d allowed", token).isNotEqualTo(Float.NEGATIVE_INFINITY);
            } else {
                List<Integer> allowed = new ArrayList<>();
                for (int t = 0; t < logits.length; t++) if (logits[t] != Float.NEGATIVE_INFINITY) allowed.add(t);
                assertThat(allowed).isNotEmpty();
                // Prefer ending and closing so that outputs stay short.
                token = allowed.contains(EOS) ? EOS : allowed.get(random.nextInt(allowed.size()));
            }
            if (token == EOS) break;
            constraint.accept(token);
            if (token >= FIRST_SPECIAL) {
                parser.accept(pending.toString(StandardCharsets.UTF_8));
                pending.reset();
                parser.acceptControlToken(text(token));
            } else if (token >= FIRST_WORD) {
                pending.writeBytes(text(token).getBytes(StandardCharsets.UTF_8));
            } else {
                pending.write(token);
            }
        }
        parser.accept(pending.toString(StandardCharsets.UTF_8));
        parser.finish();
        return parser.result();
    }

    private static void assertValidCalls(ParsedOutput out, int maxCalls) throws Exception {
        assertThat(out.toolCalls()).isNotEmpty().hasSizeLessThanOrEqualTo(maxCalls);
        for (ParsedToolCall call : out.toolCalls()) {
            assertThat(call.complete()).isTrue();
            assertThat(call.name()).isIn("get_weather", "get_time");
            Object schema = call.name().equals("get_time") ? TIME : WEATHER;
            var complaints = SCHEMAS.getSchema(JsonText.write(schema), InputFormat.JSON)
                    .validate(call.arguments(), InputFormat.JSON);
            assertThat(complaints).as(call.arguments()).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(ToolCallFormat.class)
    void aForcedCallIsWrittenInTheFormatsSyntaxAndParsesBack(ToolCallFormat format) throws Exception {
        Grammar g = ToolCallGrammar.forced(format, TOOLS, false, CACHE);
        String canonical = format.open() + format.callStart("get_time") + "{\"zone\": \"UTC\"}" + format.callEnd() + format.close();
        assertThat(g.matches(canonical.getBytes(StandardCharsets.UTF_8))).as(canonical).isTrue();
        assertThat(g.matches(canonical.replace("UTC", "PST").getBytes(StandardCharsets.UTF_8))).isFalse();
        for (long seed = 0; seed < 6; seed++) {
            ParsedOutput out = decode(format, GrammarConstraint.active(g, VOCABULARY), new int[0], seed);
            assertValidCalls(out, 1);
            assertThat(out.content()).isNull();
        }
    }

    @Test
    void aForcedMarkerMayBeItsSpecialToken() {
        Grammar g = ToolCallGrammar.forced(ToolCallFormat.MISTRAL, TOOLS, false, CACHE);
        var c = GrammarConstraint.active(g, VOCABULARY);
        float[] logits = new float[EOS + 1];
        c.mask(logits);
        assertThat(logits[FIRST_SPECIAL + 1]).isNotEqualTo(Float.NEGATIVE_INFINITY); // [TOOL_CALLS]
        assertThat(logits[FIRST_SPECIAL]).isEqualTo(Float.NEGATIVE_INFINITY); // <|python_tag|>
        assertThat(logits['{']).isEqualTo(Float.NEGATIVE_INFINITY);
    }

    @Test
    void freeTextIsFreeUntilTheMarkerThenTheCallIsConstrained() throws Exception {
        Grammar g = ToolCallGrammar.afterTrigger(ToolCallFormat.HERMES, TOOLS, false, CACHE);
        for (long seed = 0; seed < 6; seed++) {
            var c = GrammarConstraint.triggered(g, VOCABULARY, ToolCallGrammar.trigger(ToolCallFormat.HERMES));
            // "Sure thing{x" is free text; the marker arrives split across two tokens, with a newline after it.
            int[] script = concat(new int[] {FIRST_WORD + 10, FIRST_WORD + 11}, tokensOf("{x "),
                    new int[] {FIRST_WORD, FIRST_WORD + 1}, tokensOf("\n"));
            ParsedOutput out = decode(ToolCallFormat.HERMES, c, script, seed);
            assertThat(out.content()).isEqualTo("Sure thing{x ");
            assertValidCalls(out, 1);
        }
    }

    @Test
    void nothingIsMaskedBeforeTheMarker() {
        Grammar g = ToolCallGrammar.afterTrigger(ToolCallFormat.HERMES, TOOLS, false, CACHE);
        var c = GrammarConstraint.triggered(g, VOCABULARY, ToolCallGrammar.trigger(ToolCallFormat.HERMES));
        for (int t : tokensOf("<tool_cal")) c.accept(t);
        float[] logits = new float[EOS + 1];
        c.mask(logits);
        assertThat(c.isActive()).isFalse();
        for (float l : logits) assertThat(l).isZero();
        c.accept('l');
        c.accept('>');
        assertThat(c.isActive()).isTrue();
        c.mask(logits);
        assertThat(logits['x']).isEqualTo(Float.NEGATIVE_INFINITY);
        assertThat(logits['{']).isZero();
    }

    @ParameterizedTest
    @EnumSource(value = ToolCallFormat.class, names = {"LLAMA3", "MISTRAL"})
    void aSpecialTokenMarkerStartsTheCall(ToolCallFormat format) throws Exception {
        Grammar g = ToolCallGrammar.afterTrigger(format, TOOLS, true, CACHE);
        int marker = FIRST_SPECIAL + SPECIALS.indexOf(format.openingMarker());
        for (long seed = 0; seed < 6; seed++) {
            var c = GrammarConstraint.triggered(g, VOCABULARY, ToolCallGrammar.trigger(format));
            ParsedOutput out = decode(format, c, concat(new int[] {FIRST_WORD + 10}, new int[] {marker}), seed);
            assertThat(out.content()).isEqualTo("Sure");
            assertValidCalls(out, Integer.MAX_VALUE);
        }
    }

    @ParameterizedTest
    @EnumSource(value = ToolCallFormat.class, names = {"LLAMA3", "GENERIC"})
    void aReplyThatOpensAsAJsonCallIsConstrainedFromItsFirstByte(ToolCallFormat format) throws Exception {
        Grammar g = ToolCallGrammar.afterTrigger(format, TOOLS, false, CACHE);
        for (long seed = 0; seed < 6; seed++) {
            var c = GrammarConstraint.triggered(g, VOCABULARY, ToolCallGrammar.trigger(format));
            ParsedOutput out = decode(format, c, concat(tokensOf(" { "), new int[] {FIRST_WORD + 5}), seed);
            assertThat(c.isActive()).isTrue();
            assertValidCalls(out, 1);
            assertThat(out.content()).isNull();
        }
    }

    @Test
    void aMarkerInsideTheThinkingBlockIsThinking() {
        Grammar g = ToolCallGrammar.afterTrigger(ToolCallFormat.HERMES, TOOLS, false, CACHE);
        var c = GrammarConstraint.triggered(g, VOCABULARY, ToolCallGrammar.trigger(ToolCallFormat.HERMES, false));
        for (int t : tokensOf("<think>maybe <tool_call> here</thi")) c.accept(t);
        assertThat(c.isActive()).isFalse();
        for (int t : tokensOf("nk>Sure.")) c.accept(t);
        assertThat(c.isActive()).isFalse();
        c.accept(FIRST_SPECIAL + 2);
        assertThat(c.isActive()).isTrue();
    }

    @Test
    void aPromptThatOpenedTheThinkingBlockStartsQuiet() {
        Grammar g = ToolCallGrammar.afterTrigger(ToolCallFormat.HERMES, TOOLS, false, CACHE);
        var c = GrammarConstraint.triggered(g, VOCABULARY, ToolCallGrammar.trigger(ToolCallFormat.HERMES, true));
        c.accept(FIRST_SPECIAL + 2);
        assertThat(c.isActive()).isFalse();
        for (int t : tokensOf("</think>\n\n")) c.accept(t);
        for (int t : tokensOf("<tool_call>")) c.accept(t);
        assertThat(c.isActive()).isTrue();
    }

    @Test
    void aReplyThatOpensWithOtherJsonStaysFree() {
        Grammar g = ToolCallGrammar.afterTrigger(ToolCallFormat.LLAMA3, TOOLS, false, CACHE);
        var c = GrammarConstraint.triggered(g, VOCABULARY, ToolCallGrammar.trigger(ToolCallFormat.LLAMA3));
        for (int t : tokensOf("{\"answer\": 1}")) c.accept(t);
        assertThat(c.isActive()).isFalse();
    }

    @Test
    void withoutParallelCallsOnlyTheEndFollowsTheFirstCall() {
        Grammar g = ToolCallGrammar.afterTrigger(ToolCallFormat.HERMES, TOOLS, false, CACHE);
        var c = GrammarConstraint.triggered(g, VOCABULARY, ToolCallGrammar.trigger(ToolCallFormat.HERMES));
        c.accept(FIRST_SPECIAL + 2);
        for (int t : tokensOf("{\"name\": \"get_time\", \"arguments\": {\"zone\": \"CET\"}}")) c.accept(t);
        c.accept(FIRST_SPECIAL + 3);
        float[] logits = new float[EOS + 1];
        c.mask(logits);
        for (int t = 0; t < EOS; t++) assertThat(logits[t]).as("token %d", t).isEqualTo(Float.NEGATIVE_INFINITY);
        assertThat(logits[EOS]).isZero();
    }

    private static int[] concat(int[]... parts) {
        return java.util.Arrays.stream(parts).flatMapToInt(java.util.Arrays::stream).toArray();
    }
}

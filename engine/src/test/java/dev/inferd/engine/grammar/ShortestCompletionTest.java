package dev.inferd.engine.grammar;

import dev.inferd.engine.chat.output.ToolCallFormat;
import dev.inferd.engine.chat.output.ToolCallGrammar;
import dev.inferd.engine.grammar.json.GrammarCache;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The shortest completion of an output from a grammar state, in bytes and in tokens. */
class ShortestCompletionTest {
    /** Every byte but 0xFF as a token of its own, plus a few longer tokens; end of generation last. */
    private static final String[] WORDS = {"\": \"", "\", \"", "name", "true", "null", "{\""};
    static final TokenVocabulary BYTES_AND_WORDS = vocabulary(WORDS);

    static TokenVocabulary vocabulary(String[] words, String... specials) {
        byte[][] tokens = new byte[255 + words.length + specials.length + 1][];
        for (int b = 0; b < 255; b++) tokens[b] = new byte[] {(byte) b};
        for (int i = 0; i < words.length; i++) tokens[255 + i] = words[i].getBytes(StandardCharsets.UTF_8);
        var named = new java.util.HashMap<Integer, String>();
        for (int i = 0; i < specials.length; i++) named.put(255 + words.length + i, specials[i]);
        return TokenVocabulary.of(tokens, new int[] {tokens.length - 1}, named);
    }

    private static String complete(String schema, String prefix) {
        var matcher = JsonSchemaCompiler.compile(MiniJsonSchemas.parse(schema)).matcher(BYTES_AND_WORDS);
        assertThat(matcher.acceptBytes(prefix.getBytes(StandardCharsets.UTF_8))).as(prefix).isTrue();
        byte[] rest = matcher.shortestCompletion();
        return rest == null ? null : new String(rest, StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0} after [{1}]")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "{\"type\":\"string\"}|                                 |\"\"",
            "{\"type\":\"string\"}|\"abc                            |\"",
            "{\"type\":\"string\",\"minLength\":3}|\"a               |00\"",
            "{\"type\":\"integer\"}|                                |0",
            "{\"type\":\"integer\",\"minimum\":42}|                  |42",
            "{\"type\":\"integer\",\"minimum\":-7,\"maximum\":-3}|   |-3",
            "{\"type\":\"number\"}|-                                |0",
            "{\"type\":\"number\"}|1.                               |0",
            "{\"type\":\"boolean\"}|                                |true",
            "{\"type\":\"null\"}|                                   |null",
            "{\"enum\":[\"medium\",\"xl\",\"small\"]}|                |\"xl\"",
            "{\"enum\":[\"medium\",\"xl\",\"small\"]}|\"me            |dium\"",
            "{\"const\":{\"a\":[1,2]}}|                              |`{\"a\": [1, 2]}`",
            "{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}|  |[]",
            "{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":2}|[5|`, 0]`",
            "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}|[\"ab|\"]",
            "{\"type\":\"object\"}|                                 |{}",
            "{\"type\":\"object\"}|{\"k\": [1, {\"x|`\": 0}]}`",
            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}||`{\"a\": \"\", \"b\": 0}`",
            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"b\"]}|{\"a\": \"hello|`\", \"b\": 0}`",
            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"integer\"}}}|{\"a\": \"x|\"}",
            "{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"boolean\"}},\"required\":[\"q\"]}},\"required\":[\"p\"]}|{\"p\": {|`\"q\": true}}`",
            "{\"anyOf\":[{\"type\":\"string\",\"minLength\":5},{\"type\":\"integer\",\"minimum\":100}]}||100",
            "{\"type\":[\"string\",\"null\"]}|                         |\"\"",
            "{\"type\":\"string\",\"format\":\"date\"}|\"2024-0        |1-01\"",
            "{\"type\":\"string\",\"pattern\":\"^[a-z]{3}-\\\\d+$\"}|\"ab|a-0\"",
            "{\"$defs\":{\"n\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"integer\"},\"next\":{\"$ref\":\"#/$defs/n\"}},\"required\":[\"v\"]}},\"$ref\":\"#/$defs/n\"}|{\"v\": 1, \"next\": {\"v\": 2, \"next\": {|`\"v\": 0}}}`",
    })
    void completesWithTheShortestValidText(String schema, String prefix, String expected) {
        String text = prefix == null ? "" : prefix;
        String completion = complete(schema, text);
        assertThat(completion).isEqualTo(expected);
        var validator = new IndependentValidator(schema);
        assertThat(validator.errors(text + completion)).as(text + completion).isEmpty();
    }

    @Test
    void aPatternStringStartsWithItsOpeningQuote() {
        assertThat(complete("{\"type\":\"string\",\"pattern\":\"^[a-z]{3}-\\\\d+$\"}", "")).isEqualTo("\"aaa-0\"");
    }

    @Test
    void tokensCountTheFewestTokensThatSpellIt() {
        var matcher = JsonSchemaCompiler.compile(MiniJsonSchemas.parse(
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}"))
                .matcher(BYTES_AND_WORDS);
        // {"name": ""} as {" + name + ": " + " + }
        assertThat(new String(matcher.shortestCompletion(), StandardCharsets.UTF_8)).isEqualTo("{\"name\": \"\"}");
        assertThat(matcher.tokensToComplete()).isEqualTo(5);
        matcher.acceptBytes("{\"name\": \"abc".getBytes(StandardCharsets.UTF_8));
        assertThat(matcher.tokensToComplete()).isEqualTo(2);
        matcher.acceptBytes("\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(matcher.tokensToComplete()).isZero();
    }

    @Test
    void aVocabularyThatCannotSpellTheCompletionNeedsTooMany() {
        var digitsOnly = TokenVocabulary.of(new byte[][] {"1".getBytes(StandardCharsets.UTF_8), null}, new int[] {1});
        var matcher = JsonSchemaCompiler.compile(MiniJsonSchemas.parse("{\"type\":\"boolean\"}")).matcher(digitsOnly);
        assertThat(matcher.tokensToComplete()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aForcedHermesCallCompletesWithItsClosingMarkerAsASpecialTokenWhereThereIsOne() {
        var cache = new GrammarCache(4);
        var tool = new ToolCallGrammar.Tool("get_weather", MiniJsonSchemas.parse(
                "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},\"unit\":{\"enum\":[\"celsius\",\"fahrenheit\"]}},\"required\":[\"city\",\"unit\"]}"));
        Grammar forced = ToolCallGrammar.forced(ToolCallFormat.HERMES, List.of(tool), false, cache);
        String call = "\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"\", \"unit\": \"celsius\"}}\n";
        var matcher = forced.matcher(BYTES_AND_WORDS);
        assertThat(new String(matcher.shortestCompletion(), StandardCharsets.ISO_8859_1)).isEqualTo(
                framed("<tool_call>") + call + framed("</tool_call>"));
        // Without the special tokens their text spells them, a byte a token here.
        int withoutSpecials = matcher.tokensToComplete();
        var specials = vocabulary(WORDS, "<tool_call>", "</tool_call>");
        int withSpecials = forced.matcher(specials).tokensToComplete();
        assertThat(withoutSpecials - withSpecials).as(withoutSpecials + " vs " + withSpecials).isEqualTo("<tool_call>".length() - 1 + "</tool_call>".length() - 1);

        var inside = forced.matcher(specials);
        inside.acceptBytes(TokenVocabulary.specialTokenBytes("<tool_call>"));
        inside.acceptBytes("\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(inside.shortestCompletion(), StandardCharsets.ISO_8859_1)).isEqualTo(
                "\", \"unit\": \"celsius\"}}\n" + framed("</tool_call>"));
    }

    private static String framed(String special) {
        return new String(TokenVocabulary.specialTokenBytes(special), StandardCharsets.ISO_8859_1);
    }

}

package dev.inferd.engine.grammar;

import dev.inferd.engine.grammar.json.GrammarCache;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import dev.inferd.engine.grammar.json.UnsupportedSchemaException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What each supported keyword admits, and the errors for what is not supported. */
class JsonSchemaCompilerTest {

    private static Grammar compile(String schema) {
        return JsonSchemaCompiler.compile(MiniJsonSchemas.parse(schema), JsonSchemaCompiler.Options.FREE_LAYOUT);
    }

    private static boolean matches(Grammar g, String text) {
        return g.matches(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void integerBoundsAdmitExactlyTheIntegersBetween() {
        long[][] ranges = {{0, 0}, {-5, 5}, {7, 123}, {-1000, -37}, {95, 1005}, {1, 9}, {10, 99}, {-20, 0}, {0, 100}};
        for (long[] r : ranges) {
            Grammar g = compile("{\"type\":\"integer\",\"minimum\":" + r[0] + ",\"maximum\":" + r[1] + "}");
            for (long v = r[0] - 150; v <= r[1] + 150; v++) {
                assertThat(matches(g, Long.toString(v))).as("%d in [%d, %d]", v, r[0], r[1]).isEqualTo(v >= r[0] && v <= r[1]);
            }
            assertThat(matches(g, "-0")).isFalse();
            assertThat(matches(g, "007")).isFalse();
        }
        Grammar exclusive = compile("{\"type\":\"integer\",\"exclusiveMinimum\":3,\"exclusiveMaximum\":6.5}");
        assertThat(List.of(3, 4, 5, 6, 7).stream().map(v -> matches(exclusive, v.toString()))).containsExactly(false, true, true, true, false);
        Grammar draft4 = compile("{\"type\":\"integer\",\"minimum\":3,\"exclusiveMinimum\":true}");
        assertThat(matches(draft4, "3")).isFalse();
        assertThat(matches(draft4, "4")).isTrue();
        Grammar positive = compile("{\"type\":\"integer\",\"minimum\":1}");
        assertThat(matches(positive, "0")).isFalse();
        assertThat(matches(positive, "99999999")).isTrue();
    }

    @Test
    void numberBounds() {
        Grammar unit = compile("{\"type\":\"number\",\"minimum\":0,\"maximum\":1}");
        for (String ok : List.of("0", "0.5", "1", "1.0", "1.000", "0.999", "0.0")) assertThat(matches(unit, ok)).as(ok).isTrue();
        for (String bad : List.of("-0.1", "1.01", "2", "-1", "1e0", "-0")) assertThat(matches(unit, bad)).as(bad).isFalse();
        Grammar open = compile("{\"type\":\"number\",\"exclusiveMinimum\":-2,\"exclusiveMaximum\":3}");
        for (String ok : List.of("-1.99", "-1", "0", "2.999", "-0.5")) assertThat(matches(open, ok)).as(ok).isTrue();
        for (String bad : List.of("-2", "-2.0", "3", "3.0", "3.5", "-2.5")) assertThat(matches(open, bad)).as(bad).isFalse();
        assertThatThrownBy(() -> compile("{\"type\":\"number\",\"maximum\":0.5}"))
                .isInstanceOfSatisfying(UnsupportedSchemaException.class, e -> assertThat(e.keyword()).isEqualTo("maximum"));
    }

    @Test
    void objectsKeepTheListedOrderAndRequiredMembers() {
        Grammar g = compile("""
                {"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"}},
                 "required":["b"],"additionalProperties":false}""");
        assertThat(matches(g, "{\"b\":1}")).isTrue();
        assertThat(matches(g, "{\"a\":\"x\",\"b\":1,\"c\":true}")).isTrue();
        assertThat(matches(g, "{\"a\":\"x\", \"b\": 1}")).isTrue();
        assertThat(matches(g, "{\"a\":\"x\"}")).as("b is required").isFalse();
        assertThat(matches(g, "{\"b\":1,\"a\":\"x\"}")).as("schema order").isFalse();
        assertThat(matches(g, "{\"b\":1,\"d\":1}")).as("no additional").isFalse();
        assertThat(matches(g, "{,\"b\":1}")).isFalse();
    }

    @Test
    void additionalPropertiesNeverRepeatAListedName() {
        Grammar g = compile("""
                {"type":"object","properties":{"id":{"type":"string"}},"additionalProperties":{"type":"integer"}}""");
        assertThat(matches(g, "{\"id\":\"x\",\"n\":1,\"idx\":2}")).isTrue();
        assertThat(matches(g, "{\"n\":1}")).isTrue();
        assertThat(matches(g, "{\"id\":\"x\",\"id\":2}")).isFalse();
        assertThat(matches(g, "{\"id\":2}")).isFalse();
        assertThat(matches(g, "{\"i\":2,\"\":3}")).isTrue();
        assertThat(matches(g, "{\"\\u0069d\":2}")).as("no escape while the name could still become a listed one").isFalse();
        Grammar any = compile("{\"type\":\"object\"}");
        assertThat(matches(any, "{\"x\":[1,{\"y\":null}]}")).isTrue();
    }

    @Test
    void arrays() {
        Grammar g = compile("{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":2,\"maxItems\":3}");
        assertThat(matches(g, "[1]")).isFalse();
        assertThat(matches(g, "[1,2]")).isTrue();
        assertThat(matches(g, "[1, 2, 3]")).isTrue();
        assertThat(matches(g, "[1,2,3,4]")).isFalse();
        Grammar tuple = compile("{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"boolean\"}],\"items\":false}");
        assertThat(matches(tuple, "[\"a\",true]")).isTrue();
        assertThat(matches(tuple, "[\"a\"]")).isTrue();
        assertThat(matches(tuple, "[\"a\",true,1]")).isFalse();
        assertThat(matches(tuple, "[true]")).isFalse();
        Grammar draft7 = compile("{\"items\":[{\"const\":1}],\"additionalItems\":{\"type\":\"string\"},\"minItems\":1}");
        assertThat(matches(draft7, "[1,\"x\",\"y\"]")).isTrue();
        assertThat(matches(draft7, "[]")).isFalse();
    }

    @Test
    void stringsLengthsPatternsFormats() {
        Grammar len = compile("{\"type\":\"string\",\"minLength\":2,\"maxLength\":3}");
        assertThat(matches(len, "\"ab\"")).isTrue();
        assertThat(matches(len, "\"é😀\\n\"")).as("three characters").isTrue();
        assertThat(matches(len, "\"a\"")).isFalse();
        assertThat(matches(len, "\"abcd\"")).isFalse();
        Grammar p = compile("{\"type\":\"string\",\"pattern\":\"^[A-Z]{2}-\\\\d{3,}$\"}");
        assertThat(matches(p, "\"AB-123\"")).isTrue();
        assertThat(matches(p, "\"AB-12\"")).isFalse();
        assertThat(matches(p, "\"xAB-123\"")).isFalse();
        Grammar unanchored = compile("{\"type\":\"string\",\"pattern\":\"ab+\"}");
        assertThat(matches(unanchored, "\"xxabbby\"")).isTrue();
        assertThat(matches(unanchored, "\"xxa\"")).isFalse();
        Grammar quote = compile("{\"type\":\"string\",\"pattern\":\"^[\\\"a]$\"}");
        assertThat(matches(quote, "\"\\\"\"")).as("a quote is written escaped").isTrue();
        Grammar date = compile("{\"type\":\"string\",\"format\":\"date\"}");
        assertThat(matches(date, "\"2024-02-28\"")).isTrue();
        assertThat(matches(date, "\"2024-02-30\"")).isFalse();
        assertThat(matches(date, "\"2024-13-01\"")).isFalse();
        Grammar dateTime = compile("{\"type\":\"string\",\"format\":\"date-time\"}");
        assertThat(matches(dateTime, "\"2024-06-30T23:59:59.123Z\"")).isTrue();
        assertThat(matches(dateTime, "\"2024-06-30T23:59:59+02:00\"")).isTrue();
        assertThat(matches(dateTime, "\"2024-06-30 23:59:59\"")).isFalse();
        Grammar uuid = compile("{\"type\":\"string\",\"format\":\"uuid\"}");
        assertThat(matches(uuid, "\"123e4567-e89b-12d3-a456-426614174000\"")).isTrue();
        Grammar email = compile("{\"type\":\"string\",\"format\":\"email\"}");
        assertThat(matches(email, "\"jane.doe@example.com\"")).isTrue();
        assertThat(matches(email, "\"jane@@example.com\"")).isFalse();
    }

    @Test
    void combinatorsAndReferences() {
        Grammar optional = compile("{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}");
        assertThat(matches(optional, "null")).isTrue();
        assertThat(matches(optional, "\"x\"")).isTrue();
        assertThat(matches(optional, "1")).isFalse();
        Grammar tree = compile("""
                {"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"value":{"type":"integer"},
                 "children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["value"],"additionalProperties":false}}}""");
        assertThat(matches(tree, "{\"value\":1,\"children\":[{\"value\":2},{\"value\":3,\"children\":[{\"value\":4}]}]}")).isTrue();
        assertThat(matches(tree, "{\"value\":1,\"children\":[{}]}")).isFalse();
        Grammar merged = compile("""
                {"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},
                          {"properties":{"b":{"type":"string"}},"required":["b"]}]}""");
        assertThat(matches(merged, "{\"a\":1,\"b\":\"x\"}")).isTrue();
        assertThat(matches(merged, "{\"a\":1}")).isFalse();
        Grammar tagged = compile("""
                {"oneOf":[{"type":"object","properties":{"kind":{"const":"a"},"x":{"type":"integer"}},"required":["kind"]},
                          {"type":"object","properties":{"kind":{"const":"b"}},"required":["kind"]}]}""");
        assertThat(matches(tagged, "{\"kind\":\"b\"}")).isTrue();
        Grammar types = compile("{\"type\":[\"integer\",\"null\"]}");
        assertThat(matches(types, "null")).isTrue();
        assertThat(matches(types, "-3")).isTrue();
        assertThat(matches(types, "1.5")).isFalse();
        Grammar enums = compile("{\"enum\":[\"red\",1,null,{\"a\":[true]}]}");
        assertThat(matches(enums, "{\"a\":[true]}")).isTrue();
        assertThat(matches(enums, "\"blue\"")).isFalse();
    }

    @Test
    void unsupportedKeywordsNameTheKeywordAndWhereItIs() {
        assertUnsupported("{\"type\":\"object\",\"properties\":{\"tags\":{\"type\":\"array\",\"uniqueItems\":true}}}",
                "uniqueItems", "/properties/tags/uniqueItems");
        assertUnsupported("{\"type\":\"string\",\"format\":\"uri\"}", "format", "/format");
        assertUnsupported("{\"$ref\":\"https://example.com/schema.json\"}", "$ref", "/$ref");
        assertUnsupported("{\"not\":{\"type\":\"string\"}}", "not", "/not");
        assertUnsupported("{\"type\":\"string\",\"pattern\":\"^(?=a)\"}", "pattern", "/pattern");
        assertUnsupported("{\"type\":\"object\",\"properties\":{\"a/b\":{\"type\":\"integer\",\"multipleOf\":5}}}",
                "multipleOf", "/properties/a~1b/multipleOf");
        assertUnsupported("{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"string\",\"maxLength\":3}]}", "oneOf", "/oneOf");
        assertUnsupported("{\"type\":\"object\",\"patternProperties\":{\"^x\":{}}}", "patternProperties", "/patternProperties");
        assertUnsupported("{\"$defs\":{\"a\":{\"type\":\"array\",\"contains\":{}}},\"$ref\":\"#/$defs/a\"}", "contains", "/$defs/a/contains");
    }

    private static void assertUnsupported(String schema, String keyword, String pointer) {
        assertThatThrownBy(() -> compile(schema)).isInstanceOfSatisfying(UnsupportedSchemaException.class, e -> {
            assertThat(e.keyword()).isEqualTo(keyword);
            assertThat(e.pointer()).isEqualTo(pointer);
            assertThat(e.getMessage()).contains(keyword);
        });
    }

    @Test
    void theCacheReturnsOneGrammarPerSchemaText() {
        var cache = new GrammarCache(8);
        Object a = MiniJsonSchemas.parse("{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"}}}");
        Object b = MiniJsonSchemas.parse("{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"}}}");
        assertThat(cache.schema(a)).isSameAs(cache.schema(b));
        assertThat(cache.anyObject()).isSameAs(cache.anyObject());
        assertThat(cache.size()).isEqualTo(2);
    }
}

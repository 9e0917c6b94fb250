package dev.inferd.engine.grammar.json;

import dev.inferd.engine.grammar.Grammar;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Compiled grammars by the canonical text of their schema (compact JSON, key order kept), least
 * recently used dropped first. Requests that repeat a tool or response schema reuse its grammar and
 * the token masks already computed for it. Thread-safe.
 */
public final class GrammarCache {
    private static final String ANY_OBJECT = "\u0000json_object";
    private static final String ANY_VALUE = "\u0000json_value";

    private final JsonSchemaCompiler.Options options;
    private final Map<String, Grammar> grammars;

    public GrammarCache(int capacity, JsonSchemaCompiler.Options options) {
        this.options = options;
        this.grammars = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Grammar> eldest) {
                return size() > capacity;
            }
        };
    }

    public GrammarCache(int capacity) {
        this(capacity, JsonSchemaCompiler.Options.DEFAULT);
    }

    /** The grammar of a schema; throws {@link UnsupportedSchemaException} for what it cannot enforce. */
    public Grammar schema(Object schema) {
        return get(JsonText.write(schema), () -> JsonSchemaCompiler.compile(schema, options));
    }

    /**
     * A grammar of {@code schema}'s values inside other text (see
     * {@link JsonSchemaCompiler#compile(Object, JsonSchemaCompiler.Options, String, java.util.function.UnaryOperator)}),
     * cached under {@code kind} (which must name {@code around}) and the schema.
     */
    public Grammar wrapped(String kind, Object schema, java.util.function.UnaryOperator<dev.inferd.engine.grammar.Expr> around) {
        return get(kind + "\u0000" + JsonText.write(schema), () -> JsonSchemaCompiler.compile(schema, options, kind, around));
    }

    public JsonSchemaCompiler.Options options() {
        return options;
    }

    /** Any JSON object. */
    public Grammar anyObject() {
        return get(ANY_OBJECT, () -> JsonSchemaCompiler.anyObject(options));
    }

    /** Any JSON value. */
    public Grammar anyValue() {
        return get(ANY_VALUE, () -> JsonSchemaCompiler.anyValue(options));
    }

    private Grammar get(String key, java.util.function.Supplier<Grammar> compile) {
        synchronized (grammars) {
            Grammar g = grammars.get(key);
            if (g != null) return g;
        }
        Grammar compiled = compile.get();
        synchronized (grammars) {
            Grammar raced = grammars.putIfAbsent(key, compiled);
            return raced != null ? raced : compiled;
        }
    }

    public int size() {
        synchronized (grammars) {
            return grammars.size();
        }
    }
}

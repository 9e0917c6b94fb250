package dev.inferd.engine.grammar.json;

import dev.inferd.engine.grammar.Expr;
import dev.inferd.engine.grammar.Grammar;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.inferd.engine.grammar.Expr.alt;
import static dev.inferd.engine.grammar.Expr.literal;
import static dev.inferd.engine.grammar.Expr.oneByte;
import static dev.inferd.engine.grammar.Expr.optional;
import static dev.inferd.engine.grammar.Expr.seq;
import static dev.inferd.engine.grammar.Expr.star;

/**
 * Compiles a JSON Schema, given as a plain Java tree (Map, List, String, Number, Boolean, null, as a
 * JSON library reads it), into a {@link Grammar} whose outputs are exactly JSON texts that validate.
 *
 * <p>Supported: {@code type} (all seven, and arrays of them), {@code properties}, {@code required},
 * {@code additionalProperties} (false, true, a schema), {@code enum}, {@code const}, {@code items}
 * (and the draft-7 array form with {@code additionalItems}), {@code prefixItems}, {@code minItems},
 * {@code maxItems}, {@code anyOf}, {@code oneOf} (when its branches cannot overlap: different types,
 * or objects told apart by a required property with distinct constant values), {@code allOf} of
 * object schemas, {@code $ref} to {@code #...} JSON pointers ({@code $defs}, {@code definitions},
 * recursion included), {@code minLength}, {@code maxLength}, {@code pattern} ({@link RegexSubset}),
 * {@code format} ({@code date}, {@code time}, {@code date-time}, {@code uuid}, {@code email},
 * {@code ipv4}), {@code minimum}, {@code maximum}, {@code exclusiveMinimum}, {@code exclusiveMaximum}
 * (integers; for numbers, integral bounds).
 *
 * <p>Any other assertion keyword raises {@link UnsupportedSchemaException} naming it and its JSON
 * pointer, as does a supported keyword in a combination the compiler cannot enforce. Annotations
 * ({@code title}, {@code description}, {@code default}, {@code examples}, ...) and keywords unknown to
 * JSON Schema (vendor extensions) are ignored, as JSON Schema itself ignores them.
 *
 * <p>Choices that narrow the output (every output still validates):
 * <ul>
 *   <li>Object members come in the order the schema's {@code properties} lists them; optional ones
 *       may be left out; required names not listed come next; additional members (when allowed) last,
 *       with names other than the listed ones.</li>
 *   <li>Without {@code additionalProperties}, an object with listed {@code properties} has no other
 *       members (as OpenAI's strict mode requires); an object schema listing none allows any.</li>
 *   <li>Whitespace: none at the start or end of the output; by default one compact layout
 *       ({@code {"a": 1, "b": [1, 2]}}: one space after {@code :} and {@code ,}, nothing else), so that
 *       a model spends no tokens on blanks and the shortest completion is the same for every output;
 *       with {@link Options#freeLayout()}, bounded blanks wherever JSON allows them.</li>
 *   <li>Strings of a bounded length are at most {@value #MAX_COUNTED} characters, arrays at most that
 *       many items; numbers as {@link JsonPieces} bounds them; recursion at most 48 rule frames deep.</li>
 * </ul>
 */
public final class JsonSchemaCompiler {
    /** The largest {@code maxLength}/{@code maxItems} enforced by counting; larger maxima are lowered to it. */
    static final int MAX_COUNTED = 1000;

    /**
     * @param maxIndent  with a free layout: at each place JSON allows whitespace, the grammar allows
     *                   nothing, one space, or one line break followed by up to this many spaces and tabs:
     *                   compact JSON, JSON with spaces after separators, and JSON pretty-printed up to
     *                   this indent, but no runs of blanks or blank lines for a weak model to spend its
     *                   tokens on
     * @param freeLayout false (the default): exactly one layout, {@code {"a": 1, "b": [1, 2]}}
     */
    public record Options(int maxIndent, boolean freeLayout) {
        /** The compact layout. */
        public static final Options DEFAULT = new Options(20, false);
        /** Free layout with indents of up to 20: two-space pretty-printing ten levels deep. */
        public static final Options FREE_LAYOUT = new Options(20, true);

        public Options {
            if (maxIndent < 0 || maxIndent > 1000) throw new IllegalArgumentException("maxIndent " + maxIndent);
        }

        /** A free layout with indents of up to {@code maxIndent}. */
        public Options(int maxIndent) {
            this(maxIndent, true);
        }
    }

    /**
     * Whitespace as the grammar allows it: {@code inside} after an opening bracket, before a colon
     * and after a value; {@code afterColon}; {@code afterComma} (also after other separators).
     */
    public record Layout(Expr inside, Expr afterColon, Expr afterComma) {
        public static Layout of(Options options) {
            if (options.freeLayout()) {
                Expr ws = JsonPieces.whitespace(options.maxIndent());
                return new Layout(ws, ws, ws);
            }
            Expr space = oneByte(' ');
            return new Layout(Expr.EMPTY, space, space);
        }
    }

    private static final Set<String> ANNOTATIONS = Set.of("title", "description", "default", "examples", "$schema", "$id",
            "$comment", "deprecated", "readOnly", "writeOnly", "$anchor", "$vocabulary", "$defs", "definitions",
            "contentEncoding", "contentMediaType", "contentSchema", "nullable", "discriminator", "example", "strict");
    private static final Set<String> UNSUPPORTED = Set.of("not", "if", "then", "else", "dependentRequired",
            "dependentSchemas", "dependencies", "patternProperties", "propertyNames", "unevaluatedProperties",
            "unevaluatedItems", "contains", "minContains", "maxContains", "uniqueItems", "multipleOf", "minProperties",
            "maxProperties", "$dynamicRef", "$recursiveRef", "$dynamicAnchor", "$recursiveAnchor");
    private static final Set<String> OBJECT_KEYWORDS = Set.of("properties", "required", "additionalProperties");
    private static final Set<String> ARRAY_KEYWORDS = Set.of("items", "prefixItems", "minItems", "maxItems", "additionalItems");
    private static final Set<String> STRING_KEYWORDS = Set.of("minLength", "maxLength", "pattern", "format");
    private static final Set<String> NUMBER_KEYWORDS = Set.of("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum");
    private static final List<String> TYPES = List.of("null", "boolean", "object", "array", "number", "integer", "string");

    private final Object root;
    private final Expr ws;
    private final Expr afterColon;
    private final Expr afterComma;
    /** Constants are written in the compact layout too ({@code {"a": [1, 2]}}). */
    private final boolean compactLayout;
    private final List<Expr> rules = new ArrayList<>();
    private final Map<String, Integer> refRules = new HashMap<>();
    private int anyValueRule = -1;

    private JsonSchemaCompiler(Object root, Options options) {
        this.root = root;
        Layout layout = Layout.of(options);
        this.ws = layout.inside();
        this.afterColon = layout.afterColon();
        this.afterComma = layout.afterComma();
        this.compactLayout = !options.freeLayout();
    }

    public static Grammar compile(Object schema) {
        return compile(schema, Options.DEFAULT);
    }

    public static Grammar compile(Object schema, Options options) {
        var c = new JsonSchemaCompiler(schema, options);
        c.rules.add(null);
        Expr top = c.schema(schema, "");
        c.rules.set(0, top);
        return new Grammar(c.rules, schema instanceof Map<?, ?> m && m.get("title") instanceof String t ? t : "json schema");
    }

    /**
     * A grammar whose output is {@code around} a value of {@code schema}: {@code around} gets the
     * value as an expression (a call of its rule, so it may appear several times) and returns the
     * whole output, e.g. the value between a tool call's markers.
     */
    public static Grammar compile(Object schema, Options options, String description,
                                  java.util.function.UnaryOperator<Expr> around) {
        var c = new JsonSchemaCompiler(schema, options);
        c.rules.add(null);
        int value = c.rules.size();
        c.rules.add(null);
        c.rules.set(value, c.schema(schema, ""));
        c.rules.set(0, around.apply(new Expr.Call(value)));
        return new Grammar(c.rules, description);
    }


    /** Any one JSON object (OpenAI's {@code json_object} mode). */
    public static Grammar anyObject(Options options) {
        var c = new JsonSchemaCompiler(Map.of(), options);
        c.rules.add(null);
        c.rules.set(0, c.anyObjectOf(c.anyValue()));
        return new Grammar(c.rules, "json object");
    }

    /** Any one JSON value. */
    public static Grammar anyValue(Options options) {
        var c = new JsonSchemaCompiler(true, options);
        c.rules.add(null);
        c.rules.set(0, c.anyValue());
        return new Grammar(c.rules, "json value");
    }

    // ---- schemas ----

    private Expr schema(Object node, String path) {
        if (node instanceof Boolean b) {
            if (b) return anyValue();
            throw new UnsupportedSchemaException("false", path, "the schema false admits no value");
        }
        Map<String, Object> m = object(node, "schema", path);
        checkKeywords(m, path);
        if (m.containsKey("$ref")) {
            requireOnly(m, path, "$ref", Set.of("$ref"));
            return ref(m.get("$ref"), path + "/$ref");
        }
        if (m.containsKey("allOf")) return schema(mergeAllOf(m, path), path);
        if (m.containsKey("anyOf") && m.containsKey("oneOf")) {
            throw new UnsupportedSchemaException("oneOf", path + "/oneOf", "anyOf and oneOf in one schema");
        }
        for (String combiner : List.of("anyOf", "oneOf")) {
            if (m.containsKey(combiner)) return union(m, combiner, path);
        }
        if (m.containsKey("const") || m.containsKey("enum")) return constants(m, path);
        var alternatives = new ArrayList<Expr>();
        for (String type : types(m, path)) alternatives.add(typed(type, m, path));
        return alt(alternatives);
    }

    private void checkKeywords(Map<String, Object> m, String path) {
        for (var e : m.entrySet()) {
            String k = e.getKey();
            if (!UNSUPPORTED.contains(k)) continue;
            Object v = e.getValue();
            boolean harmless = switch (k) {
                case "uniqueItems" -> Boolean.FALSE.equals(v);
                case "minProperties" -> v instanceof Number n && n.doubleValue() == 0;
                case "multipleOf" -> v instanceof Number n && n.doubleValue() == 1 && "integer".equals(m.get("type"));
                default -> false;
            };
            if (!harmless) throw new UnsupportedSchemaException(k, path + "/" + escape(k), "not supported by constrained decoding");
        }
    }

    /** Fails unless the schema has, besides annotations and unknown keywords, only {@code allowed} ones. */
    private static void requireOnly(Map<String, Object> m, String path, String keyword, Set<String> allowed) {
        for (String k : m.keySet()) {
            if (allowed.contains(k) || !isAssertion(k)) continue;
            throw new UnsupportedSchemaException(keyword, path + "/" + escape(keyword), "'" + keyword + "' alongside '" + k + "'");
        }
    }

    private static boolean isAssertion(String k) {
        return !ANNOTATIONS.contains(k) && (TYPES_KEYWORDS.contains(k) || UNSUPPORTED.contains(k));
    }

    private static final Set<String> TYPES_KEYWORDS = Set.of("type", "properties", "required", "additionalProperties", "enum",
            "const", "items", "prefixItems", "additionalItems", "minItems", "maxItems", "anyOf", "oneOf", "allOf", "$ref",
            "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum");

    private List<String> types(Map<String, Object> m, String path) {
        Object t = m.get("type");
        var types = new LinkedHashSet<String>();
        if (t instanceof String s) {
            types.add(s);
        } else if (t instanceof List<?> list) {
            if (list.isEmpty()) throw new UnsupportedSchemaException("type", path + "/type", "an empty list of types");
            for (Object o : list) {
                if (!(o instanceof String s)) throw new UnsupportedSchemaException("type", path + "/type", "a type that is not a string");
                types.add(s);
            }
        } else if (t != null) {
            throw new UnsupportedSchemaException("type", path + "/type", "must be a string or an array of strings");
        } else {
            if (m.keySet().stream().anyMatch(OBJECT_KEYWORDS::contains)) types.add("object");
            if (m.keySet().stream().anyMatch(ARRAY_KEYWORDS::contains)) types.add("array");
            if (m.keySet().stream().anyMatch(STRING_KEYWORDS::contains)) types.add("string");
            if (m.keySet().stream().anyMatch(NUMBER_KEYWORDS::contains)) types.add("number");
            if (types.isEmpty()) types.addAll(List.of("object", "array", "string", "number", "boolean", "null"));
        }
        for (String s : types) {
            if (!TYPES.contains(s)) throw new UnsupportedSchemaException("type", path + "/type", "unknown type '" + s + "'");
        }
        if (types.contains("number")) types.remove("integer");
        return List.copyOf(types);
    }

    private Expr typed(String type, Map<String, Object> m, String path) {
        return switch (type) {
            case "null" -> JsonPieces.NULL;
            case "boolean" -> JsonPieces.BOOLEAN;
            case "string" -> string(m, path);
            case "integer" -> integer(m, path);
            case "number" -> number(m, path);
            case "array" -> array(m, path);
            case "object" -> object(m, path);
            default -> throw new IllegalStateException(type);
        };
    }

    // ---- constants ----

    private Expr constants(Map<String, Object> m, String path) {
        String keyword = m.containsKey("const") ? "const" : "enum";
        requireOnly(m, path, keyword, Set.of("const", "enum", "type"));
        List<?> values;
        if (m.containsKey("const")) {
            values = java.util.Collections.singletonList(m.get("const"));
            if (m.containsKey("enum") && !(m.get("enum") instanceof List<?> l && l.contains(m.get("const")))) {
                throw new UnsupportedSchemaException("const", path + "/const", "a const outside the enum");
            }
        } else if (m.get("enum") instanceof List<?> list && !list.isEmpty()) {
            values = list;
        } else {
            throw new UnsupportedSchemaException("enum", path + "/enum", "must be a non-empty array");
        }
        Set<String> allowedTypes = m.containsKey("type") ? Set.copyOf(types(m, path)) : null;
        var options = new ArrayList<Expr>();
        var seen = new LinkedHashSet<String>();
        for (Object v : values) {
            if (allowedTypes != null && !allowedTypes.contains(jsonType(v)) && !(allowedTypes.contains("number") && jsonType(v).equals("integer"))) {
                continue;
            }
            String text;
            try {
                text = compactLayout ? JsonText.writeSpaced(v) : JsonText.write(v);
            } catch (IllegalArgumentException e) {
                throw new UnsupportedSchemaException(keyword, path + "/" + keyword, e.getMessage());
            }
            if (seen.add(text)) options.add(literal(text));
        }
        if (options.isEmpty()) throw new UnsupportedSchemaException(keyword, path + "/" + keyword, "no value of the allowed type");
        return alt(options);
    }

    static String jsonType(Object v) {
        return switch (v) {
            case null -> "null";
            case Boolean b -> "boolean";
            case String s -> "string";
            case Map<?, ?> map -> "object";
            case List<?> list -> "array";
            case Number n -> isIntegral(n) ? "integer" : "number";
            default -> "unknown";
        };
    }

    private static boolean isIntegral(Number n) {
        try {
            return new BigDecimal(n.toString()).stripTrailingZeros().scale() <= 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    // ---- combinators ----

    private Expr union(Map<String, Object> m, String combiner, String path) {
        if (!(m.get(combiner) instanceof List<?> branches) || branches.isEmpty()) {
            throw new UnsupportedSchemaException(combiner, path + "/" + combiner, "must be a non-empty array of schemas");
        }
        var siblings = new LinkedHashMap<String, Object>();
        for (var e : m.entrySet()) {
            if (!e.getKey().equals(combiner) && isAssertion(e.getKey())) siblings.put(e.getKey(), e.getValue());
        }
        var resolved = new ArrayList<Object>();
        for (int i = 0; i < branches.size(); i++) {
            Object branch = branches.get(i);
            if (!siblings.isEmpty()) {
                // the siblings apply to every branch: each branch is then the two together
                var both = new LinkedHashMap<String, Object>();
                both.put("allOf", List.of(siblings, branch));
                branch = mergeAllOf(both, path + "/" + combiner + "/" + i);
            }
            resolved.add(branch);
        }
        if (combiner.equals("oneOf")) checkDisjoint(resolved, path + "/oneOf");
        var options = new ArrayList<Expr>();
        for (int i = 0; i < resolved.size(); i++) {
            Object branch = resolved.get(i);
            if (Boolean.FALSE.equals(branch)) continue;
            options.add(schema(branch, path + "/" + combiner + "/" + i));
        }
        if (options.isEmpty()) throw new UnsupportedSchemaException(combiner, path + "/" + combiner, "no branch admits a value");
        return alt(options);
    }

    /**
     * oneOf needs exactly one branch to match. Enforced when no output can match two branches: their
     * types differ, or they are objects with a required property whose constant values differ.
     */
    private void checkDisjoint(List<Object> branches, String path) {
        for (int i = 0; i < branches.size(); i++) {
            for (int j = i + 1; j < branches.size(); j++) {
                Object a = resolve(branches.get(i), path);
                Object b = resolve(branches.get(j), path);
                Set<String> ta = typesOf(a, path, 0);
                Set<String> tb = typesOf(b, path, 0);
                var common = new LinkedHashSet<>(ta);
                common.retainAll(tb);
                if (common.isEmpty()) continue;
                if (common.equals(Set.of("object")) && discriminated(a, b, path)) continue;
                throw new UnsupportedSchemaException("oneOf", path, "branches " + i + " and " + j
                        + " may both match a value, so oneOf cannot be enforced (anyOf can)");
            }
        }
    }

    private boolean discriminated(Object a, Object b, String path) {
        if (!(a instanceof Map<?, ?> ma) || !(b instanceof Map<?, ?> mb)) return false;
        if (!(ma.get("properties") instanceof Map<?, ?> pa) || !(mb.get("properties") instanceof Map<?, ?> pb)) return false;
        if (!(ma.get("required") instanceof List<?> ra) || !(mb.get("required") instanceof List<?> rb)) return false;
        for (Object name : pa.keySet()) {
            if (!ra.contains(name) || !rb.contains(name) || !pb.containsKey(name)) continue;
            Set<String> va = constants(resolve(pa.get(name), path));
            Set<String> vb = constants(resolve(pb.get(name), path));
            if (va == null || vb == null) continue;
            var common = new LinkedHashSet<>(va);
            common.retainAll(vb);
            if (common.isEmpty()) return true;
        }
        return false;
    }

    private static Set<String> constants(Object schema) {
        if (!(schema instanceof Map<?, ?> m)) return null;
        if (m.containsKey("const")) return Set.of(JsonText.write(m.get("const")));
        if (m.get("enum") instanceof List<?> l) {
            var s = new LinkedHashSet<String>();
            for (Object v : l) s.add(JsonText.write(v));
            return s;
        }
        return null;
    }

    /** The JSON types a schema may produce, integers counted as numbers. */
    private Set<String> typesOf(Object schema, String path, int depth) {
        var all = Set.of("null", "boolean", "object", "array", "number", "string");
        if (depth > 32 || !(schema instanceof Map<?, ?> raw)) return all;
        Map<String, Object> m = object(schema, "schema", path);
        if (m.containsKey("$ref")) return typesOf(resolve(m, path), path, depth + 1);
        var out = new LinkedHashSet<String>();
        for (String combiner : List.of("anyOf", "oneOf")) {
            if (m.get(combiner) instanceof List<?> l) {
                for (Object b : l) out.addAll(typesOf(b, path, depth + 1));
                return out;
            }
        }
        Set<String> constants = constants(m);
        if (constants != null) {
            for (Object v : m.containsKey("const") ? List.of(m.get("const")) : (List<?>) m.get("enum")) {
                out.add(jsonType(v).equals("integer") ? "number" : jsonType(v));
            }
            return out;
        }
        if (m.get("type") == null && raw.isEmpty()) return all;
        for (String t : types(m, path)) out.add(t.equals("integer") ? "number" : t);
        return out;
    }

    /** Follows {@code $ref} chains to the schema they name. */
    private Object resolve(Object schema, String path) {
        for (int hops = 0; schema instanceof Map<?, ?> m && m.get("$ref") instanceof String ref; hops++) {
            if (hops > 32) throw new UnsupportedSchemaException("$ref", path, "a cycle of references");
            schema = lookup(ref, path + "/$ref");
        }
        return schema;
    }

    /** One schema with everything {@code allOf} (and the schema itself) asks of objects. */
    private Map<String, Object> mergeAllOf(Map<String, Object> m, String path) {
        String at = path + "/allOf";
        if (!(m.get("allOf") instanceof List<?> parts) || parts.isEmpty()) {
            throw new UnsupportedSchemaException("allOf", at, "must be a non-empty array of schemas");
        }
        var all = new ArrayList<Map<String, Object>>();
        var own = new LinkedHashMap<>(m);
        own.remove("allOf");
        all.add(own);
        for (int i = 0; i < parts.size(); i++) {
            Object part = resolve(parts.get(i), at + "/" + i);
            if (Boolean.TRUE.equals(part)) continue;
            Map<String, Object> pm = object(part, "allOf", at + "/" + i);
            if (pm.containsKey("allOf")) pm = mergeAllOf(pm, at + "/" + i);
            all.add(pm);
        }
        var merged = new LinkedHashMap<String, Object>();
        var properties = new LinkedHashMap<String, Object>();
        var required = new LinkedHashSet<Object>();
        Set<String> allowedNames = null;
        for (var part : all) {
            for (var e : part.entrySet()) {
                String k = e.getKey();
                Object v = e.getValue();
                switch (k) {
                    case "properties" -> {
                        for (var p : object(v, "properties", at).entrySet()) {
                            Object prior = properties.get(p.getKey());
                            properties.put(p.getKey(), prior == null || prior.equals(p.getValue())
                                    ? p.getValue() : Map.of("allOf", List.of(prior, p.getValue())));
                        }
                    }
                    case "required" -> required.addAll(list(v, "required", at));
                    case "additionalProperties" -> {
                        if (Boolean.FALSE.equals(v)) {
                            var names = part.get("properties") instanceof Map<?, ?> pp ? pp.keySet() : Set.of();
                            var set = new LinkedHashSet<String>();
                            for (Object n : names) set.add((String) n);
                            if (allowedNames == null) allowedNames = set;
                            else allowedNames.retainAll(set);
                        } else if (!Boolean.TRUE.equals(v)) {
                            mergeEqual(merged, k, v, at);
                        }
                    }
                    case "type" -> {
                        Object prior = merged.get("type");
                        if (prior == null) {
                            merged.put("type", v);
                        } else {
                            var a = new LinkedHashSet<>(prior instanceof List<?> l ? l : List.of(prior));
                            a.retainAll(v instanceof List<?> l ? l : List.of(v));
                            if (a.isEmpty()) throw new UnsupportedSchemaException("allOf", at, "types that no value has together");
                            merged.put("type", List.copyOf(a));
                        }
                    }
                    default -> {
                        if (isAssertion(k)) mergeEqual(merged, k, v, at);
                        else merged.putIfAbsent(k, v);
                    }
                }
            }
        }
        if (allowedNames != null) {
            properties.keySet().retainAll(allowedNames);
            for (Object r : required) {
                if (!allowedNames.contains(r)) {
                    throw new UnsupportedSchemaException("allOf", at, "'" + r + "' is required but additionalProperties false excludes it");
                }
            }
            merged.put("additionalProperties", false);
        }
        if (!properties.isEmpty()) merged.put("properties", properties);
        if (!required.isEmpty()) merged.put("required", List.copyOf(required));
        return merged;
    }

    private static void mergeEqual(Map<String, Object> merged, String k, Object v, String at) {
        Object prior = merged.putIfAbsent(k, v);
        if (prior != null && !prior.equals(v)) {
            throw new UnsupportedSchemaException("allOf", at, "two different values of '" + k + "' to combine");
        }
    }

    // ---- references ----

    private Expr ref(Object target, String path) {
        if (!(target instanceof String ref)) throw new UnsupportedSchemaException("$ref", path, "must be a string");
        Integer rule = refRules.get(ref);
        if (rule == null) {
            Object schema = lookup(ref, path);
            rule = rules.size();
            rules.add(null);
            refRules.put(ref, rule);
            rules.set(rule, schema(schema, ref.substring(1)));
        }
        return new Expr.Call(rule);
    }

    private Object lookup(String ref, String path) {
        if (!ref.startsWith("#")) {
            throw new UnsupportedSchemaException("$ref", path, "'" + ref + "' is not in this document (only #... references are)");
        }
        String pointer = ref.substring(1);
        if (!pointer.isEmpty() && !pointer.startsWith("/")) {
            throw new UnsupportedSchemaException("$ref", path, "'" + ref + "' is not a JSON pointer (anchors are not supported)");
        }
        Object node = root;
        if (pointer.isEmpty()) return node;
        for (String raw : pointer.substring(1).split("/", -1)) {
            String token = java.net.URLDecoder.decode(raw.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8)
                    .replace("~1", "/").replace("~0", "~");
            node = switch (node) {
                case Map<?, ?> m when m.containsKey(token) -> m.get(token);
                case List<?> l when token.matches("\\d+") && Integer.parseInt(token) < l.size() -> l.get(Integer.parseInt(token));
                default -> throw new UnsupportedSchemaException("$ref", path, "'" + ref + "' names nothing in the schema");
            };
        }
        return node;
    }

    // ---- any value ----

    private Expr anyValue() {
        if (anyValueRule < 0) {
            anyValueRule = rules.size();
            rules.add(null);
            Expr value = new Expr.Call(anyValueRule);
            rules.set(anyValueRule, alt(anyObjectOf(value), anyArrayOf(value), JsonPieces.ANY_STRING, JsonPieces.NUMBER,
                    JsonPieces.TRUE, JsonPieces.FALSE, JsonPieces.NULL));
        }
        return new Expr.Call(anyValueRule);
    }

    private Expr anyObjectOf(Expr value) {
        Expr member = seq(JsonPieces.ANY_STRING, ws, oneByte(':'), afterColon, value, ws);
        return seq(oneByte('{'), ws, optional(seq(member, star(seq(oneByte(','), afterComma, member)))), oneByte('}'));
    }

    private Expr anyArrayOf(Expr value) {
        Expr element = seq(value, ws);
        return seq(oneByte('['), ws, optional(seq(element, star(seq(oneByte(','), afterComma, element)))), oneByte(']'));
    }

    // ---- objects ----

    private record Member(Expr expr, boolean required) {
    }

    private Expr object(Map<String, Object> m, String path) {
        Map<String, Object> properties = m.containsKey("properties") ? object(m.get("properties"), "properties", path + "/properties") : Map.of();
        List<Object> requiredList = m.containsKey("required") ? list(m.get("required"), "required", path + "/required") : List.of();
        var required = new LinkedHashSet<String>();
        for (Object r : requiredList) {
            if (!(r instanceof String s)) throw new UnsupportedSchemaException("required", path + "/required", "names must be strings");
            required.add(s);
        }
        Object additional = m.get("additionalProperties");
        Expr additionalValue;
        if (additional == null) {
            additionalValue = properties.isEmpty() ? anyValue() : null;
        } else if (Boolean.FALSE.equals(additional)) {
            additionalValue = null;
        } else {
            additionalValue = schema(additional, path + "/additionalProperties");
        }
        var members = new ArrayList<Member>();
        for (var p : properties.entrySet()) {
            String at = path + "/properties/" + escape(p.getKey());
            if (Boolean.FALSE.equals(p.getValue())) {
                if (required.contains(p.getKey())) throw new UnsupportedSchemaException("required", path + "/required", "'" + p.getKey() + "' is required but its schema is false");
                continue;
            }
            members.add(new Member(member(p.getKey(), schema(p.getValue(), at)), required.contains(p.getKey())));
        }
        for (String r : required) {
            if (properties.containsKey(r)) continue;
            if (additionalValue == null) {
                throw new UnsupportedSchemaException("required", path + "/required", "'" + r + "' is required but no property of that name is allowed");
            }
            members.add(new Member(member(r, additionalValue), true));
        }
        Expr extra = null;
        if (additionalValue != null) {
            var names = new LinkedHashSet<>(properties.keySet());
            names.addAll(required);
            extra = seq(JsonStrings.stringExcept(names), ws, oneByte(':'), afterColon, additionalValue, ws);
        }
        return seq(oneByte('{'), ws, members(members, extra), oneByte('}'));
    }

    private Expr member(String name, Expr value) {
        return seq(literal(JsonText.string(name)), ws, oneByte(':'), afterColon, value, ws);
    }

    /**
     * The members in order, optional ones present or not, commas between, then any number of extra
     * members: a graph with a node per (member index, whether one was written yet).
     */
    private Expr members(List<Member> members, Expr extra) {
        int n = members.size();
        int end = 2 * (n + 1);
        var edges = new ArrayList<Expr.Dag.Edge>();
        Expr comma = seq(oneByte(','), afterComma);
        for (int i = 0; i < n; i++) {
            Member member = members.get(i);
            for (int written = 0; written < 2; written++) {
                int from = 2 * i + written;
                if (!member.required()) edges.add(new Expr.Dag.Edge(from, 2 * (i + 1) + written, Expr.EMPTY));
                edges.add(new Expr.Dag.Edge(from, 2 * (i + 1) + 1, written == 0 ? member.expr() : seq(comma, member.expr())));
            }
        }
        int none = 2 * n;
        int some = 2 * n + 1;
        if (extra == null) {
            edges.add(new Expr.Dag.Edge(none, end, Expr.EMPTY));
            edges.add(new Expr.Dag.Edge(some, end, Expr.EMPTY));
        } else {
            Expr more = star(seq(comma, extra));
            edges.add(new Expr.Dag.Edge(none, end, optional(seq(extra, more))));
            edges.add(new Expr.Dag.Edge(some, end, more));
        }
        return new Expr.Dag(end + 1, 0, end, edges);
    }

    // ---- arrays ----

    private Expr array(Map<String, Object> m, String path) {
        List<Object> prefix = List.of();
        Object items = m.get("items");
        String itemsPath = path + "/items";
        if (m.containsKey("prefixItems")) prefix = list(m.get("prefixItems"), "prefixItems", path + "/prefixItems");
        if (items instanceof List<?> tuple) { // draft 7 and before: items as an array, additionalItems for the rest
            if (m.containsKey("prefixItems")) throw new UnsupportedSchemaException("items", itemsPath, "an array of schemas alongside prefixItems");
            prefix = List.copyOf(tuple);
            items = m.get("additionalItems");
            itemsPath = path + "/additionalItems";
        } else if (m.containsKey("additionalItems")) {
            throw new UnsupportedSchemaException("additionalItems", path + "/additionalItems", "only meaningful with items as an array");
        }
        String prefixKeyword = m.containsKey("prefixItems") ? "prefixItems" : "items";
        int min = count(m, "minItems", path, 0);
        int max = m.containsKey("maxItems") ? count(m, "maxItems", path, -1) : -1;
        int k = prefix.size();
        if (Boolean.FALSE.equals(items)) max = max == -1 ? k : Math.min(max, k);
        if (max != -1 && min > max) throw new UnsupportedSchemaException("minItems", path + "/minItems", "more items required than allowed");
        if (min > MAX_COUNTED) throw new UnsupportedSchemaException("minItems", path + "/minItems", "above " + MAX_COUNTED);
        if (max > MAX_COUNTED) max = MAX_COUNTED;
        var fixed = new ArrayList<Expr>();
        int limit = max == -1 ? k : Math.min(k, max);
        for (int i = 0; i < limit; i++) fixed.add(schema(prefix.get(i), path + "/" + prefixKeyword + "/" + i));
        Expr rest = null;
        if (max == -1 || max > k) {
            Expr item = items == null ? anyValue() : schema(items, itemsPath);
            if (item instanceof Expr.Call) {
                rest = item;
            } else { // one copy of the item's grammar however many items there are
                int rule = rules.size();
                rules.add(item);
                rest = new Expr.Call(rule);
            }
        }
        return seq(oneByte('['), ws, elements(fixed, rest, min, max, 0), oneByte(']'));
    }

    /** Elements from index {@code j} on, {@code j} of them already written. */
    private Expr elements(List<Expr> fixed, Expr rest, int min, int max, int j) {
        if (max != -1 && j >= max) return Expr.EMPTY;
        Expr comma = seq(oneByte(','), afterComma);
        if (j >= fixed.size() && j >= min) {
            if (rest == null) return Expr.EMPTY;
            Expr element = seq(rest, ws);
            int more = max == -1 ? -1 : max - j - 1;
            Expr tail = Expr.repeat(seq(comma, element), 0, more);
            if (j == 0) return optional(seq(element, tail));
            return Expr.repeat(seq(comma, element), 0, max == -1 ? -1 : max - j);
        }
        Expr element = seq(j < fixed.size() ? fixed.get(j) : rest, ws);
        if (element == null) throw new IllegalStateException();
        Expr head = j == 0 ? element : seq(comma, element);
        Expr body = seq(head, elements(fixed, rest, min, max, j + 1));
        return j >= min ? optional(body) : body;
    }

    // ---- strings ----

    private Expr string(Map<String, Object> m, String path) {
        int min = count(m, "minLength", path, 0);
        int max = m.containsKey("maxLength") ? count(m, "maxLength", path, -1) : -1;
        if (max != -1 && min > max) throw new UnsupportedSchemaException("minLength", path + "/minLength", "above maxLength");
        if (min > MAX_COUNTED) throw new UnsupportedSchemaException("minLength", path + "/minLength", "above " + MAX_COUNTED);
        if (max > MAX_COUNTED) max = MAX_COUNTED;
        boolean counted = m.containsKey("minLength") || m.containsKey("maxLength");
        if (m.containsKey("format")) {
            if (!(m.get("format") instanceof String format)) throw new UnsupportedSchemaException("format", path + "/format", "must be a string");
            Expr content = StringFormats.content(format, path + "/format");
            if (content == null) {
                throw new UnsupportedSchemaException("format", path + "/format", "format '" + format + "' is not supported (supported: "
                        + new java.util.TreeSet<>(StringFormats.supported()) + ")");
            }
            if (counted || m.containsKey("pattern")) {
                throw new UnsupportedSchemaException("format", path + "/format", "format together with minLength, maxLength or pattern");
            }
            return seq(JsonPieces.QUOTE, content, JsonPieces.QUOTE);
        }
        if (m.containsKey("pattern")) {
            if (!(m.get("pattern") instanceof String pattern)) throw new UnsupportedSchemaException("pattern", path + "/pattern", "must be a string");
            if (counted) throw new UnsupportedSchemaException("pattern", path + "/pattern", "pattern together with minLength or maxLength");
            return seq(JsonPieces.QUOTE, RegexSubset.compile(pattern, path + "/pattern"), JsonPieces.QUOTE);
        }
        return JsonPieces.string(min, max);
    }

    // ---- numbers ----

    private Expr integer(Map<String, Object> m, String path) {
        long largest = JsonPieces.largestMagnitude();
        BigDecimal lo = lowerBound(m, path);
        BigDecimal hi = upperBound(m, path);
        if (lo == null && hi == null) return JsonPieces.INTEGER;
        long from = lo == null ? -largest : clamp(lo.setScale(0, RoundingMode.CEILING), largest);
        long to = hi == null ? largest : clamp(hi.setScale(0, RoundingMode.FLOOR), largest);
        if (isExclusive(m, "minimum") && lo != null && lo.stripTrailingZeros().scale() <= 0) from++;
        if (isExclusive(m, "maximum") && hi != null && hi.stripTrailingZeros().scale() <= 0) to--;
        if (from > to) throw new UnsupportedSchemaException("minimum", path, "no integer lies between the bounds");
        return JsonPieces.integerRange(from, to);
    }

    private Expr number(Map<String, Object> m, String path) {
        BigDecimal lo = lowerBound(m, path);
        BigDecimal hi = upperBound(m, path);
        if (lo == null && hi == null) return JsonPieces.NUMBER;
        return NumberRange.of(lo, isExclusive(m, "minimum"), hi, isExclusive(m, "maximum"), path);
    }

    private static long clamp(BigDecimal v, long largest) {
        return v.max(BigDecimal.valueOf(-largest)).min(BigDecimal.valueOf(largest)).longValueExact();
    }

    /** The lower bound from minimum / exclusiveMinimum (the larger when both are given). */
    private static BigDecimal lowerBound(Map<String, Object> m, String path) {
        BigDecimal min = decimal(m, "minimum", path);
        BigDecimal exclusive = m.get("exclusiveMinimum") instanceof Boolean ? null : decimal(m, "exclusiveMinimum", path);
        if (min == null) return exclusive;
        if (exclusive == null) return min;
        return exclusive.compareTo(min) >= 0 ? exclusive : min;
    }

    private static BigDecimal upperBound(Map<String, Object> m, String path) {
        BigDecimal max = decimal(m, "maximum", path);
        BigDecimal exclusive = m.get("exclusiveMaximum") instanceof Boolean ? null : decimal(m, "exclusiveMaximum", path);
        if (max == null) return exclusive;
        if (exclusive == null) return max;
        return exclusive.compareTo(max) <= 0 ? exclusive : max;
    }

    /** Whether the effective lower ("minimum") or upper ("maximum") bound excludes itself. */
    private static boolean isExclusive(Map<String, Object> m, String which) {
        String cap = Character.toUpperCase(which.charAt(0)) + which.substring(1);
        Object ex = m.get("exclusive" + cap);
        if (ex instanceof Boolean b) return b; // draft 4
        if (!(ex instanceof Number e)) return false;
        if (!(m.get(which) instanceof Number plain)) return true;
        int cmp = new BigDecimal(e.toString()).compareTo(new BigDecimal(plain.toString()));
        return which.equals("minimum") ? cmp >= 0 : cmp <= 0;
    }

    private static BigDecimal decimal(Map<String, Object> m, String keyword, String path) {
        Object v = m.get(keyword);
        if (v == null) return null;
        if (!(v instanceof Number n)) throw new UnsupportedSchemaException(keyword, path + "/" + keyword, "must be a number");
        return new BigDecimal(n.toString());
    }

    // ---- helpers ----

    private static int count(Map<String, Object> m, String keyword, String path, int absent) {
        Object v = m.get(keyword);
        if (v == null) return absent;
        if (!(v instanceof Number n) || !isIntegral(n) || n.doubleValue() < 0) {
            throw new UnsupportedSchemaException(keyword, path + "/" + keyword, "must be a non-negative integer");
        }
        return n.doubleValue() > Integer.MAX_VALUE ? Integer.MAX_VALUE : n.intValue();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object v, String keyword, String path) {
        if (!(v instanceof Map<?, ?> m)) throw new UnsupportedSchemaException(keyword, path, "must be an object");
        for (Object k : m.keySet()) {
            if (!(k instanceof String)) throw new UnsupportedSchemaException(keyword, path, "has a key that is not a string");
        }
        return (Map<String, Object>) m;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object v, String keyword, String path) {
        if (!(v instanceof List<?> l)) throw new UnsupportedSchemaException(keyword, path, "must be an array");
        return (List<Object>) l;
    }

    /** A JSON pointer token (RFC 6901). */
    static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }
}

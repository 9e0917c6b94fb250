package dev.inferd.server.openai;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Optional;

/**
 * Typed, range-checked reads from one JSON object of a request, each failure a 400 naming the field.
 * JSON null counts as absent, since OpenAI's optional fields are nullable. Unknown fields are
 * simply never read: newer SDKs send newer fields.
 */
public final class Fields {

    private final JsonNode object;
    private final String prefix;

    private Fields(JsonNode object, String prefix) {
        this.object = object;
        this.prefix = prefix;
    }

    /** The request body itself; it must be a JSON object. */
    public static Fields ofBody(JsonNode body) {
        if (!body.isObject()) {
            throw ApiError.invalid(null, "The request body must be a JSON object, but got " + describe(body) + ".");
        }
        return new Fields(body, "");
    }

    /** A nested object at {@code path} (for error messages), which must be an object. */
    public static Fields ofObject(JsonNode node, String path) {
        if (!node.isObject()) {
            throw ApiError.invalidType(path, "an object", describe(node));
        }
        return new Fields(node, path + ".");
    }

    public String path(String name) {
        return prefix + name;
    }

    /** The raw value, empty when absent or null. */
    public Optional<JsonNode> node(String name) {
        JsonNode value = object.get(name);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
    }

    public JsonNode required(String name) {
        return node(name).orElseThrow(() -> ApiError.missing(path(name)));
    }

    public String requiredString(String name) {
        return string(name).orElseThrow(() -> ApiError.missing(path(name)));
    }

    public Optional<String> string(String name) {
        return node(name).map(v -> {
            if (!v.isTextual()) throw ApiError.invalidType(path(name), "a string", describe(v));
            return v.textValue();
        });
    }

    public Optional<Boolean> bool(String name) {
        return node(name).map(v -> {
            if (!v.isBoolean()) throw ApiError.invalidType(path(name), "a boolean", describe(v));
            return v.booleanValue();
        });
    }

    public boolean bool(String name, boolean fallback) {
        return bool(name).orElse(fallback);
    }

    /** A number within [min, max]. */
    public Optional<Double> number(String name, double min, double max) {
        return node(name).map(v -> {
            if (!v.isNumber()) throw ApiError.invalidType(path(name), "a number", describe(v));
            double d = v.doubleValue();
            if (!(d >= min && d <= max)) {
                throw ApiError.invalid(path(name), "Invalid value for '" + path(name) + "': must be between "
                        + format(min) + " and " + format(max) + ", but got " + v.asText() + ".");
            }
            return d;
        });
    }

    /** An integer within [min, max]; 2.0 counts as the integer 2, 2.5 does not. */
    public Optional<Long> integer(String name, long min, long max) {
        return node(name).map(v -> {
            long value = integerValue(v, path(name));
            if (value < min || value > max) {
                String range = max >= Integer.MAX_VALUE ? "at least " + min : "between " + min + " and " + max;
                throw ApiError.invalid(path(name),
                        "Invalid value for '" + path(name) + "': must be " + range + ", but got " + v.asText() + ".");
            }
            return value;
        });
    }

    public Optional<Integer> intValue(String name, int min, int max) {
        return integer(name, min, max).map(Long::intValue);
    }

    static long integerValue(JsonNode v, String path) {
        if (v.isIntegralNumber() && v.canConvertToLong()) return v.longValue();
        if (v.isFloatingPointNumber() && v.doubleValue() == Math.rint(v.doubleValue())
                && Math.abs(v.doubleValue()) < 0x1p63) {
            return (long) v.doubleValue();
        }
        throw ApiError.invalidType(path, "an integer", describe(v));
    }

    public static String describe(JsonNode v) {
        if (v.isTextual()) return "a string";
        if (v.isBoolean()) return "a boolean";
        if (v.isIntegralNumber()) return v.canConvertToLong() ? "an integer" : "an integer out of range";
        if (v.isNumber()) return "a decimal number";
        if (v.isArray()) return "an array";
        if (v.isObject()) return "an object";
        if (v.isNull()) return "null";
        return v.getNodeType().name().toLowerCase();
    }

    private static String format(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}

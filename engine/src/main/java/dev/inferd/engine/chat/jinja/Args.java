package dev.inferd.engine.chat.jinja;

import java.util.List;
import java.util.Map;

/** Evaluated arguments of a filter, test, method or global, read the Python way: by position or by name. */
record Args(List<Object> positional, Map<String, Object> named) {

    static Args of(List<Object> positional, Map<String, Object> named) {
        return new Args(positional, named);
    }

    /** The argument at {@code index} or named {@code name}, else {@code fallback}. */
    Object get(int index, String name, Object fallback) {
        if (index < positional.size()) {
            return positional.get(index);
        }
        return named.containsKey(name) ? named.get(name) : fallback;
    }

    boolean has(int index, String name) {
        return index < positional.size() || named.containsKey(name);
    }

    boolean flag(int index, String name, boolean fallback) {
        return Values.truthy(get(index, name, fallback));
    }

    Object required(int index, String name, String function) {
        if (!has(index, name)) {
            throw new TemplateException(function + "() missing required argument '" + name + "'");
        }
        return get(index, name, null);
    }

    String string(int index, String name, String fallback) {
        Object v = get(index, name, fallback);
        return v == null || v instanceof Undefined ? fallback : Values.str(v);
    }

    int integer(int index, String name, int fallback) {
        Object v = get(index, name, null);
        if (v == null || v instanceof Undefined) {
            return fallback;
        }
        if (Values.isNumeric(v)) {
            return (int) Values.toLong(v);
        }
        if (v instanceof String s) {
            try {
                return Integer.parseInt(s.strip());
            } catch (NumberFormatException e) {
                // fall through to the error below
            }
        }
        throw new TemplateException("expected an integer for '" + name + "', got " + Values.typeName(v));
    }
}

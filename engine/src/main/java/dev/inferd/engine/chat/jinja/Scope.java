package dev.inferd.engine.chat.jinja;

import java.util.HashMap;
import java.util.Map;

/**
 * Variables visible at one point of a render. A for loop or a macro call opens a child scope, so a
 * {@code set} inside it does not leak out (which is why templates use {@code namespace}).
 */
final class Scope {
    private final Scope parent;
    private final Map<String, Object> variables = new HashMap<>();

    Scope(Scope parent) {
        this.parent = parent;
    }

    Object lookup(String name) {
        for (Scope s = this; s != null; s = s.parent) {
            if (s.variables.containsKey(name)) {
                return s.variables.get(name);
            }
        }
        return Undefined.named(name);
    }

    void set(String name, Object value) {
        variables.put(name, value);
    }
}

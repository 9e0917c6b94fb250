package dev.inferd.engine.chat.jinja;

import java.util.LinkedHashMap;
import java.util.Map;

/** The mutable object made by {@code namespace(...)}: the one way a template carries state out of a loop. */
final class Namespace {
    final Map<String, Object> attributes = new LinkedHashMap<>();

    @Override
    public String toString() {
        return "<Namespace " + Values.repr(attributes) + ">";
    }
}

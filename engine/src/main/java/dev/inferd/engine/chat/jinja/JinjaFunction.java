package dev.inferd.engine.chat.jinja;

import java.util.List;
import java.util.Map;

/** Anything a template can call: globals, macros, bound string and dict methods. */
@FunctionalInterface
interface JinjaFunction {
    Object call(List<Object> positional, Map<String, Object> named);
}

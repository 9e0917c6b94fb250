package dev.inferd.engine.chat.jinja;

import java.util.ArrayList;
import java.util.Collection;

/** A Python tuple: a list everywhere, except that it prints with parentheses, as {@code dict.items()} pairs do. */
final class Tuple extends ArrayList<Object> {

    Tuple(Collection<?> items) {
        super(items);
    }

    static Tuple pair(Object first, Object second) {
        Tuple t = new Tuple(java.util.List.of());
        t.add(first);
        t.add(second);
        return t;
    }
}

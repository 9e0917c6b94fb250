package dev.inferd.engine.chat.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Attribute access ({@code x.name}), item access ({@code x[key]}) and slicing, as Jinja resolves them. */
final class Access {
    private Access() {
    }

    /**
     * {@code x.name}: Python attributes first (so a dict's {@code items}/{@code get}/... are its
     * methods), then items. Missing is undefined, and so is anything on undefined or None.
     */
    static Object attribute(Object target, String name) {
        return switch (target) {
            case Map<?, ?> map -> {
                if (Methods.isDictMethod(name)) {
                    yield Methods.bind(map, name);
                }
                yield Values.containsKey(map, name) ? Values.mapGet(map, name) : missing(target, name);
            }
            case Namespace ns -> ns.attributes.containsKey(name) ? ns.attributes.get(name) : missing(target, name);
            case LoopInfo loop -> loop.attribute(name);
            case String s when Methods.isStringMethod(name) -> Methods.bind(s, name);
            case Undefined u -> new Undefined(u.description() + "." + name);
            case null, default -> missing(target, name);
        };
    }

    /** {@code x[key]}: items first, then attributes for string keys; negative list indexes count from the end. */
    static Object item(Object target, Object key) {
        switch (target) {
            case Map<?, ?> map -> {
                if (Values.containsKey(map, key)) {
                    return Values.mapGet(map, key);
                }
            }
            case List<?> list -> {
                if (Values.isInteger(key) || key instanceof Boolean) {
                    long i = Values.toLong(key);
                    long j = i < 0 ? i + list.size() : i;
                    return j >= 0 && j < list.size() ? list.get((int) j) : new Undefined("list index " + i + " (out of range)");
                }
            }
            case String s -> {
                if (Values.isInteger(key)) {
                    int[] cps = Values.codePoints(s);
                    long i = Values.toLong(key);
                    long j = i < 0 ? i + cps.length : i;
                    return j >= 0 && j < cps.length ? Character.toString(cps[(int) j]) : new Undefined("string index " + i + " (out of range)");
                }
            }
            case Undefined u -> {
                return new Undefined(u.description() + "[" + Values.repr(key) + "]");
            }
            case null, default -> { }
        }
        if (key instanceof String name && !(target instanceof Map<?, ?>)) {
            return attribute(target, name);
        }
        return target instanceof Map<?, ?>
                ? new Undefined("'dict object' has no attribute " + Values.repr(key))
                : missing(target, Values.str(key));
    }

    private static Undefined missing(Object target, String name) {
        return new Undefined("'" + Values.typeName(target) + " object' has no attribute '" + name + "'");
    }

    /** Python slicing {@code x[start:stop:step]} of a list or string. */
    static Object slice(Object target, Object start, Object stop, Object step) {
        long stepValue = step == null ? 1 : Values.toLong(step);
        if (stepValue == 0) {
            throw new TemplateException("slice step cannot be zero");
        }
        return switch (target) {
            case List<?> list -> {
                List<Object> out = new ArrayList<>();
                for (int i : indices(list.size(), start, stop, stepValue)) {
                    out.add(list.get(i));
                }
                yield out;
            }
            case String s -> {
                int[] cps = Values.codePoints(s);
                var sb = new StringBuilder();
                for (int i : indices(cps.length, start, stop, stepValue)) {
                    sb.appendCodePoint(cps[i]);
                }
                yield sb.toString();
            }
            case Undefined u -> u;
            case null, default -> throw new TemplateException("'" + Values.typeName(target) + "' object is not subscriptable");
        };
    }

    private static List<Integer> indices(int length, Object start, Object stop, long step) {
        long lo;
        long hi;
        if (step > 0) {
            lo = start == null ? 0 : clamp(Values.toLong(start), length, 0, length);
            hi = stop == null ? length : clamp(Values.toLong(stop), length, 0, length);
        } else {
            lo = start == null ? length - 1 : clamp(Values.toLong(start), length, -1, length - 1);
            hi = stop == null ? -1 : clamp(Values.toLong(stop), length, -1, length - 1);
        }
        List<Integer> out = new ArrayList<>();
        for (long i = lo; step > 0 ? i < hi : i > hi; i += step) {
            out.add((int) i);
        }
        return out;
    }

    private static long clamp(long index, int length, long min, long max) {
        long i = index < 0 ? index + length : index;
        return Math.max(min, Math.min(max, i));
    }
}

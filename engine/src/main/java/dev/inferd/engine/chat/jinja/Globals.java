package dev.inferd.engine.chat.jinja;

import java.time.Clock;
import java.time.ZonedDateTime;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Functions every template can call: Jinja's {@code range}, {@code namespace} and {@code dict}, and
 * Hugging Face's {@code raise_exception} and {@code strftime_now}.
 */
final class Globals {
    private Globals() {
    }

    static Map<String, Object> create(Clock clock) {
        Map<String, Object> globals = new LinkedHashMap<>();
        globals.put("range", (JinjaFunction) Globals::range);
        globals.put("namespace", (JinjaFunction) Globals::namespace);
        globals.put("dict", (JinjaFunction) Globals::dict);
        globals.put("raise_exception", (JinjaFunction) (args, named) -> {
            throw new TemplateRaisedException(args.isEmpty() ? "raise_exception() called" : Values.str(args.getFirst()), 0);
        });
        globals.put("strftime_now", (JinjaFunction) (args, named) -> {
            if (args.isEmpty()) {
                throw new TemplateException("strftime_now() needs a format");
            }
            return strftime(Values.str(args.getFirst()), ZonedDateTime.now(clock));
        });
        return globals;
    }

    private static Object range(List<Object> args, Map<String, Object> named) {
        if (args.isEmpty() || args.size() > 3 || args.stream().anyMatch(a -> !Values.isInteger(a))) {
            throw new TemplateException("range() takes 1 to 3 integer arguments");
        }
        long start = args.size() == 1 ? 0 : Values.toLong(args.get(0));
        long stop = Values.toLong(args.get(args.size() == 1 ? 0 : 1));
        long step = args.size() == 3 ? Values.toLong(args.get(2)) : 1;
        if (step == 0) {
            throw new TemplateException("range() arg 3 must not be zero");
        }
        if (Math.abs((stop - start) / step) > 100_000) {
            throw new TemplateException("range() too large for a template");
        }
        List<Object> out = new ArrayList<>();
        for (long i = start; step > 0 ? i < stop : i > stop; i += step) {
            out.add(i);
        }
        return out;
    }

    private static Object namespace(List<Object> args, Map<String, Object> named) {
        Namespace ns = new Namespace();
        for (Object a : args) {
            if (!(a instanceof Map<?, ?> m)) {
                throw new TemplateException("namespace() takes a mapping or keyword arguments");
            }
            m.forEach((k, v) -> ns.attributes.put(Values.str(k), v));
        }
        ns.attributes.putAll(named);
        return ns;
    }

    private static Object dict(List<Object> args, Map<String, Object> named) {
        Map<Object, Object> out = new LinkedHashMap<>();
        for (Object a : args) {
            if (a instanceof Map<?, ?> m) {
                out.putAll(m);
            } else {
                for (Object pair : Values.iterate(a)) {
                    List<Object> kv = Values.iterate(pair);
                    if (kv.size() != 2) {
                        throw new TemplateException("dict() sequence elements must be pairs");
                    }
                    out.put(kv.get(0), kv.get(1));
                }
            }
        }
        out.putAll(named);
        return out;
    }

    /** Python's strftime in the C locale, for the directives templates print dates with. */
    static String strftime(String format, ZonedDateTime t) {
        var sb = new StringBuilder();
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%' || i + 1 >= format.length()) {
                sb.append(c);
                continue;
            }
            char d = format.charAt(++i);
            boolean noPad = false;
            if (d == '-' && i + 1 < format.length()) {
                noPad = true;
                d = format.charAt(++i);
            }
            String pad2 = noPad ? "%d" : "%02d";
            sb.append(switch (d) {
                case 'a' -> t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.US);
                case 'A' -> t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.US);
                case 'b', 'h' -> t.getMonth().getDisplayName(TextStyle.SHORT, Locale.US);
                case 'B' -> t.getMonth().getDisplayName(TextStyle.FULL, Locale.US);
                case 'd' -> String.format(pad2, t.getDayOfMonth());
                case 'e' -> String.format("%2d", t.getDayOfMonth());
                case 'm' -> String.format(pad2, t.getMonthValue());
                case 'y' -> String.format(pad2, t.getYear() % 100);
                case 'Y' -> Integer.toString(t.getYear());
                case 'H' -> String.format(pad2, t.getHour());
                case 'I' -> String.format(pad2, (t.getHour() + 11) % 12 + 1);
                case 'M' -> String.format(pad2, t.getMinute());
                case 'S' -> String.format(pad2, t.getSecond());
                case 'p' -> t.getHour() < 12 ? "AM" : "PM";
                case 'j' -> String.format(noPad ? "%d" : "%03d", t.getDayOfYear());
                case 'Z' -> t.getZone().getDisplayName(TextStyle.SHORT, Locale.US);
                case 'z' -> t.getOffset().getId().equals("Z") ? "+0000" : t.getOffset().getId().replace(":", "");
                case 'F' -> String.format("%d-%02d-%02d", t.getYear(), t.getMonthValue(), t.getDayOfMonth());
                case '%' -> "%";
                default -> throw new TemplateException("strftime_now: unsupported directive %" + d);
            });
        }
        return sb.toString();
    }
}

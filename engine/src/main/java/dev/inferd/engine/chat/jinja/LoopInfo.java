package dev.inferd.engine.chat.jinja;

import java.util.List;

/** The {@code loop} variable inside a for loop. */
final class LoopInfo {
    private final List<Object> items;
    int index0;

    LoopInfo(List<Object> items) {
        this.items = items;
    }

    Object attribute(String name) {
        int length = items.size();
        return switch (name) {
            case "index" -> (long) index0 + 1;
            case "index0" -> (long) index0;
            case "revindex" -> (long) (length - index0);
            case "revindex0" -> (long) (length - index0 - 1);
            case "first" -> index0 == 0;
            case "last" -> index0 == length - 1;
            case "length" -> (long) length;
            case "depth" -> 1L;
            case "depth0" -> 0L;
            case "previtem" -> index0 > 0 ? items.get(index0 - 1) : new Undefined("there is no previous item, 'loop.previtem'");
            case "nextitem" -> index0 < length - 1 ? items.get(index0 + 1) : new Undefined("there is no next item, 'loop.nextitem'");
            case "cycle" -> (JinjaFunction) (args, named) -> {
                if (args.isEmpty()) {
                    throw new TemplateException("loop.cycle() needs at least one argument");
                }
                return args.get(index0 % args.size());
            };
            default -> new Undefined("'loop." + name + "'");
        };
    }
}

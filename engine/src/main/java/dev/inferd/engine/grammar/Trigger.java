package dev.inferd.engine.grammar;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Where free output turns into text a grammar constrains (a tool call in a free reply): right after
 * one of {@code markers} (written as text, whatever the token split, or as a special token with
 * that text), or when the output opens with one of {@code openings}; the grammar then reads the
 * output from its first non-blank byte on. Openings are compared as JSON text: blanks outside
 * strings are ignored, so {@code {"name"}} matches {@code { "name"}.
 *
 * <p>Text between {@code quietOpen} and {@code quietClose} (a thinking block) triggers nothing; with
 * {@code startsQuiet} the output begins inside such a block (its prompt opened it).
 *
 * @param markers texts after which the grammar applies; may be empty
 * @param openings ASCII texts that, opening the output, put it under the grammar; may be empty
 * @param quietOpen the text opening a block that triggers nothing, or null for none
 * @param quietClose the text closing that block (null when {@code quietOpen} is)
 * @param startsQuiet the output begins inside such a block
 */
public record Trigger(List<String> markers, List<String> openings, String quietOpen, String quietClose, boolean startsQuiet) {
    public Trigger(List<String> markers, List<String> openings) {
        this(markers, openings, null, null, false);
    }

    /** This trigger, silent between {@code open} and {@code close}; {@code startsInside}: the output begins inside. */
    public Trigger quietBetween(String open, String close, boolean startsInside) {
        return new Trigger(markers, openings, open, close, startsInside);
    }

    public Trigger {
        markers = List.copyOf(markers);
        openings = List.copyOf(openings);
        if ((quietOpen == null) != (quietClose == null) || (startsQuiet && quietOpen == null)) {
            throw new IllegalArgumentException("a quiet block needs both its open and close texts");
        }
        for (String o : openings) {
            if (o.isEmpty() || !o.chars().allMatch(c -> c > ' ' && c < 0x7F)) {
                throw new IllegalArgumentException("an opening is printable ASCII without blanks: " + o);
            }
        }
    }

    byte[][] markerBytes() {
        return markers.stream().map(m -> m.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    }
}

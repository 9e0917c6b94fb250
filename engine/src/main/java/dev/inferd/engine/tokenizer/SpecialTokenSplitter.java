package dev.inferd.engine.tokenizer;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts the text of special tokens out of the input before it is tokenized, as llama.cpp's
 * {@code tokenizer_st_partition} does: each special token in turn, longest text first, splits every
 * remaining text fragment at all its occurrences. User-defined tokens are always cut out; control and
 * unknown tokens only when the caller asks to parse special tokens.
 */
final class SpecialTokenSplitter {
    private final Vocabulary vocab;

    SpecialTokenSplitter(Vocabulary vocab) {
        this.vocab = vocab;
    }

    List<Fragment> split(String text, boolean parseSpecial) {
        List<Span> spans = new ArrayList<>();
        if (!text.isEmpty()) spans.add(new Span(0, text.length(), Vocabulary.NONE));
        for (int id : vocab.specialsLongestFirst()) {
            if (!parseSpecial && vocab.has(id, TokenAttr.CONTROL | TokenAttr.UNKNOWN)) continue;
            spans = cutOut(text, spans, id);
        }
        List<Fragment> fragments = new ArrayList<>(spans.size());
        for (Span span : spans) {
            fragments.add(span.isToken() ? new Fragment.SpecialToken(span.token)
                    : new Fragment.Text(text.substring(span.start, span.end)));
        }
        return fragments;
    }

    private List<Span> cutOut(String text, List<Span> spans, int id) {
        String special = vocab.text(id);
        boolean lstrip = vocab.has(id, TokenAttr.LSTRIP);
        boolean rstrip = vocab.has(id, TokenAttr.RSTRIP);
        List<Span> out = null; // allocated on the first match only: most tokens never occur
        for (int s = 0; s < spans.size(); s++) {
            Span span = spans.get(s);
            int match = span.isToken() ? -1 : text.indexOf(special, span.start, span.end);
            if (match < 0) {
                if (out != null) out.add(span);
                continue;
            }
            if (out == null) out = new ArrayList<>(spans.subList(0, s));
            int pos = span.start;
            while (match >= 0) {
                int leftEnd = match;
                if (lstrip) while (leftEnd > pos && isAsciiSpace(text.charAt(leftEnd - 1))) leftEnd--;
                if (leftEnd > pos) out.add(new Span(pos, leftEnd, Vocabulary.NONE));
                out.add(new Span(match, match + special.length(), id));
                pos = match + special.length();
                if (rstrip) while (pos < span.end && isAsciiSpace(text.charAt(pos))) pos++;
                match = text.indexOf(special, pos, span.end);
            }
            if (pos < span.end) out.add(new Span(pos, span.end, Vocabulary.NONE));
        }
        return out == null ? spans : out;
    }

    /** C's {@code isspace} in the "C" locale, which llama.cpp uses for the strip flags. */
    private static boolean isAsciiSpace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    /** A range of the input: raw text, or the special token {@code token} matched there. */
    private record Span(int start, int end, int token) {
        boolean isToken() {
            return token != Vocabulary.NONE;
        }
    }
}

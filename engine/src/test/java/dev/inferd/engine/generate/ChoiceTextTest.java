package dev.inferd.engine.generate;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ChoiceTextTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static TokenLogprob lp(String text) {
        return new TokenLogprob(0, text, utf8(text), -1f, List.of());
    }

    /** Feeds pieces, collects released text until a stop or the end. */
    private static String run(List<String> stops, String... pieces) {
        var out = new StringBuilder();
        var text = new ChoiceText(stops);
        for (String p : pieces) {
            var r = text.add(utf8(p), null);
            out.append(r.text());
            if (r.stopped()) return out + "|STOP";
        }
        return out.append(text.flush().text()).toString();
    }

    @Test
    void withoutStopsEverythingGoesOutAtOnce() {
        var text = new ChoiceText(List.of());
        assertThat(text.add(utf8("Hello"), null).text()).isEqualTo("Hello");
        assertThat(text.add(utf8(" world"), null).text()).isEqualTo(" world");
    }

    @Test
    void stopStringSplitAcrossTokensNeverAppears() {
        assertThat(run(List.of("END"), "Once", " E", "N", "D", " more")).isEqualTo("Once |STOP");
        assertThat(run(List.of("\n\n"), "a\n", "\nb")).isEqualTo("a|STOP");
    }

    @Test
    void heldBackTextIsReleasedWhenItStopsLookingLikeAStop() {
        var text = new ChoiceText(List.of("END"));
        assertThat(text.add(utf8("x E"), null).text()).isEqualTo("x ");
        assertThat(text.add(utf8("N"), null).text()).isEmpty();
        assertThat(text.add(utf8("O"), null).text()).isEqualTo("ENO");
    }

    @Test
    void earliestOfSeveralStopsWins() {
        assertThat(run(List.of("cd", "b"), "abcd")).isEqualTo("a|STOP");
    }

    @Test
    void heldTextIsFlushedAtTheEnd() {
        assertThat(run(List.of("END"), "the E", "N")).isEqualTo("the EN");
    }

    @Test
    void multiByteCharactersSplitAcrossTokensAreNeverCut() {
        byte[] euro = utf8("€"); // 3 bytes
        var text = new ChoiceText(List.of());
        assertThat(text.add(new byte[]{euro[0]}, null).text()).isEmpty();
        assertThat(text.add(new byte[]{euro[1]}, null).text()).isEmpty();
        assertThat(text.add(new byte[]{euro[2], 'x'}, null).text()).isEqualTo("€x");
    }

    @Test
    void anUnfinishedCharacterAtTheEndBecomesAReplacementCharacter() {
        var text = new ChoiceText(List.of());
        text.add(utf8("a"), null);
        text.add(new byte[]{(byte) 0xE2}, null);
        assertThat(text.flush().text()).isEqualTo("\uFFFD");
    }

    @Test
    void logprobsTravelWithTheTextThatCompletesThem() {
        var text = new ChoiceText(List.of("END"));
        List<TokenLogprob> seen = new ArrayList<>();
        var r1 = text.add(utf8("a"), lp("a"));
        seen.addAll(r1.tokens());
        var r2 = text.add(utf8(" E"), lp(" E"));
        assertThat(r2.text()).isEqualTo(" ");
        assertThat(r2.tokens()).isEmpty();
        var r3 = text.add(utf8("ND"), lp("ND"));
        assertThat(r3.stopSequence()).isEqualTo("END");
        seen.addAll(r3.tokens());
        // " E" contributed text before the stop, so it is reported; "ND" lies wholly inside the stop.
        assertThat(seen).extracting(TokenLogprob::text).containsExactly("a", " E");
    }
}

package dev.inferd.speech.whisper;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class WordAlignmentTest {

    @Test
    void dtwFollowsTheCheapestDiagonal() {
        // 3 tokens over 6 frames: token 0 is cheap on frames 0-1, token 1 on 2-3, token 2 on 4-5
        int n = 3, m = 6;
        float[] cost = new float[n * m];
        for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) cost[i * m + j] = j / 2 == i ? -1 : 1;
        int[][] path = WordAlignment.dtw(cost, n, m);
        assertThat(path[0]).containsExactly(0, 0, 1, 1, 2, 2);
        assertThat(path[1]).containsExactly(0, 1, 2, 3, 4, 5);
    }

    @Test
    void theMedianFilterMirrorsTheEdges() {
        float[] x = {0, 5, 5, 0, 9, 0, 0, 0};
        float[] out = new float[x.length];
        WordAlignment.medianFilter(x, 0, x.length, 3, out);
        // frame -1 is frame 1 (5), not a repeat of frame 0: the first median is 5
        assertThat(out).containsExactly(5, 5, 5, 5, 0, 0, 0, 0);
    }

    @Test
    void wordsStartAtTheFrameWhereTheirFirstTokenStarts() {
        // 4 text tokens and the end of text, over 10 frames; tokens start at frames 0, 2, 5, 6, 9
        int frames = 10;
        int[] starts = {0, 2, 5, 6, 9};
        float[] matrix = new float[starts.length * frames];
        java.util.Arrays.fill(matrix, -1);
        for (int r = 0; r < starts.length; r++) {
            int end = r + 1 < starts.length ? starts[r + 1] : frames;
            for (int f = starts[r]; f < end; f++) matrix[r * frames + f] = 1;
        }
        var words = List.of(new WordAlignment.WordTokens(" ask", List.of(1)), new WordAlignment.WordTokens(" not", List.of(2, 3)),
                new WordAlignment.WordTokens(" what", List.of(4)));
        var timed = WordAlignment.time(matrix, frames, words);
        assertThat(timed).extracting(WordAlignment.Timed::start).containsExactly(0.0, 0.04, 0.12);
        assertThat(timed).extracting(WordAlignment.Timed::end).containsExactly(0.04, 0.12, 0.18);
    }

    @Test
    void punctuationJoinsItsWord() {
        var raw = List.of(new WordAlignment.Timed(" \"", List.of(1), 0, 0.1), new WordAlignment.Timed("Hello", List.of(2), 0.1, 0.5),
                new WordAlignment.Timed(",", List.of(3), 0.5, 0.6), new WordAlignment.Timed(" world", List.of(4), 0.6, 1.0));
        var tidy = WordAlignment.tidy(raw).stream().filter(w -> !w.text().isEmpty()).toList();
        assertThat(tidy).extracting(WordAlignment.Timed::text).containsExactly(" \"Hello,", " world");
        assertThat(tidy.getFirst().tokens()).containsExactly(1, 2, 3);
        assertThat(tidy.getFirst().start()).isEqualTo(0.1);
    }

    @Test
    void knownSizesUseTheirPublishedHeadsAndOthersTheTopHalf() {
        var tiny = AlignmentHeads.of(WhisperShape.TINY.hparams(1));
        assertThat(tiny.count()).isEqualTo(6);
        assertThat(tiny.indexOf(2, 2)).isZero();
        var turbo = AlignmentHeads.of(WhisperShape.LARGE_V3_TURBO.hparams(1));
        assertThat(turbo.indexOf(3, 14)).isEqualTo(5);
        var micro = AlignmentHeads.of(SyntheticWhisperTest.MICRO.hparams(1));
        assertThat(micro.count()).isEqualTo(2);
        var odd = AlignmentHeads.topHalf(6, 4);
        assertThat(odd.count()).isEqualTo(12);
        assertThat(odd.layers()[0]).isEqualTo(3);
    }
}

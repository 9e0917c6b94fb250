package dev.inferd.engine.batch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PromptLookupTest {
    @Test
    void proposesWhatFollowedTheLatestEarlierOccurrence() {
        int[] tokens = {1, 2, 3, 8, 2, 3, 4, 6, 9, 2, 3, 4, 7, 5, 2, 3, 4};
        int[] draft = new int[2];
        assertThat(PromptLookup.propose(tokens, tokens.length, 2, draft)).isEqualTo(2);
        assertThat(draft).containsExactly(7, 5);
    }

    @Test
    void takesTheLongestSuffixThatOccurredBefore() {
        // the 4-gram "1 2 3 4" occurred at 0; the 3-gram "2 3 4" later, at 6
        int[] tokens = {1, 2, 3, 4, 7, 9, 2, 3, 4, 5, 0, 1, 2, 3, 4};
        int[] draft = new int[4];
        assertThat(PromptLookup.propose(tokens, tokens.length, 4, draft)).isEqualTo(4);
        assertThat(draft).containsExactly(7, 9, 2, 3);
    }

    @Test
    void proposesNothingWithoutARepeatOfThreeTokens() {
        int[] tokens = {1, 2, 3, 1, 2, 5, 6, 1, 2};
        assertThat(PromptLookup.propose(tokens, tokens.length, 4, new int[4])).isZero();
    }

    @Test
    void stopsAtTheEndOfTheText() {
        int[] tokens = {5, 6, 7, 5, 6, 7};
        int[] draft = new int[8];
        assertThat(PromptLookup.propose(tokens, tokens.length, 8, draft)).isEqualTo(3);
        assertThat(draft).startsWith(5, 6, 7);
    }
}

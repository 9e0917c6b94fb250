package dev.inferd.engine.sample;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class SamplerTest {
    private static final float[] LOGITS = {1f, 3f, 2f, 0.5f, 2.9f};

    private static SamplingParams params(float temperature, float topP, float presence, float frequency, Map<Integer, Float> bias) {
        return new SamplingParams(temperature, topP, 7L, presence, frequency, bias);
    }

    @Test
    void greedyTakesTheLargestLogit() {
        assertThat(new Sampler(SamplingParams.GREEDY, 5, 0).sample(LOGITS, 0)).isEqualTo(1);
    }

    @Test
    void readsTheRowAtTheGivenOffset() {
        float[] two = new float[10];
        System.arraycopy(LOGITS, 0, two, 5, 5);
        assertThat(new Sampler(SamplingParams.GREEDY, 5, 0).sample(two, 5)).isEqualTo(1);
    }

    @Test
    void logitBiasCanBanOrForceATokenAndLeavesTheInputAlone() {
        float[] logits = LOGITS.clone();
        assertThat(new Sampler(params(0, 1, 0, 0, Map.of(1, -100f)), 5, 0).sample(logits, 0)).isEqualTo(4);
        assertThat(new Sampler(params(1.5f, 1, 0, 0, Map.of(3, 100f)), 5, 0).sample(logits, 0)).isEqualTo(3);
        assertThat(logits).containsExactly(LOGITS);
    }

    @Test
    void penaltiesCountGeneratedTokens() {
        var frequency = new Sampler(params(0, 1, 0, 0.2f, Map.of()), 5, 0);
        assertThat(frequency.sample(LOGITS, 0)).isEqualTo(1);
        frequency.accept(1);
        assertThat(frequency.sample(LOGITS, 0)).isEqualTo(4); // 3 - 0.2 < 2.9
        var presence = new Sampler(params(0, 1, 0.05f, 0, Map.of()), 5, 0);
        presence.accept(1);
        presence.accept(1);
        assertThat(presence.sample(LOGITS, 0)).isEqualTo(1); // 3 - 0.05 > 2.9: presence counts once
    }

    /** Allows only the tokens of a sequence, one after the other, and records what it was told. */
    private static final class Sequence implements TokenConstraint {
        final int[] allowed;
        int next;

        Sequence(int... allowed) {
            this.allowed = allowed;
        }

        @Override
        public void mask(float[] logits) {
            for (int i = 0; i < logits.length; i++) if (i != allowed[next]) logits[i] = Float.NEGATIVE_INFINITY;
        }

        @Override
        public void accept(int token) {
            next++;
        }
    }

    @Test
    void aConstraintDecidesWhatGreedyAndRandomChoiceMayTake() {
        var greedy = new Sampler(SamplingParams.GREEDY, 5, 0, new Sequence(3, 0));
        assertThat(greedy.sample(LOGITS, 0)).isEqualTo(3);
        greedy.accept(3);
        assertThat(greedy.sample(LOGITS, 0)).isEqualTo(0);
        var random = new Sampler(params(1.5f, 0.9f, 0, 0, Map.of()), 5, 11, new Sequence(2, 2, 2, 2, 2, 2, 2, 2));
        for (int i = 0; i < 8; i++) {
            assertThat(random.sample(LOGITS, 0)).isEqualTo(2);
            random.accept(2);
        }
    }

    @Test
    void sameSeedSameTokens() {
        var a = new Sampler(params(1, 1, 0, 0, Map.of()), 5, 42);
        var b = new Sampler(params(1, 1, 0, 0, Map.of()), 5, 42);
        for (int i = 0; i < 50; i++) assertThat(a.sample(LOGITS, 0)).isEqualTo(b.sample(LOGITS, 0));
    }

    @Test
    void temperatureSamplingFollowsTheSoftmax() {
        var s = new Sampler(params(1, 1, 0, 0, Map.of()), 5, 1);
        int[] counts = new int[5];
        int trials = 40_000;
        for (int i = 0; i < trials; i++) counts[s.sample(LOGITS, 0)]++;
        double z = 0;
        for (float l : LOGITS) z += Math.exp(l);
        for (int t = 0; t < 5; t++) {
            assertThat(counts[t] / (double) trials).isCloseTo(Math.exp(LOGITS[t]) / z, within(0.015));
        }
    }

    @Test
    void topPKeepsOnlyTheNucleus() {
        // Probabilities at T=1: token 1 ~0.37, token 4 ~0.34, token 2 ~0.14: top_p 0.5 keeps {1, 4}.
        var s = new Sampler(params(1, 0.5f, 0, 0, Map.of()), 5, 3);
        boolean saw1 = false, saw4 = false;
        for (int i = 0; i < 2000; i++) {
            int t = s.sample(LOGITS, 0);
            assertThat(t).isIn(1, 4);
            saw1 |= t == 1;
            saw4 |= t == 4;
        }
        assertThat(saw1 && saw4).isTrue();
    }

    @Test
    void topKKeepsOnlyTheKMostLikelyTokens() {
        // top_k 2 keeps tokens 1 and 4 (logits 3 and 2.9) however much mass the others hold.
        var s = new Sampler(new SamplingParams(1, 1, 7L, 0, 0, Map.of(), 2), 5, 5);
        boolean saw1 = false, saw4 = false;
        for (int i = 0; i < 2000; i++) {
            int t = s.sample(LOGITS, 0);
            assertThat(t).isIn(1, 4);
            saw1 |= t == 1;
            saw4 |= t == 4;
        }
        assertThat(saw1 && saw4).isTrue();
    }

    @Test
    void biasOutsideTheVocabularyIsRejected() {
        assertThatThrownBy(() -> new Sampler(params(0, 1, 0, 0, Map.of(5, 1f)), 5, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("token 5");
    }

    @Test
    void logprobsAreALogSoftmaxAndTopIsOrdered() {
        double lse = Logprobs.logSumExp(LOGITS, 0, 5);
        double total = 0;
        for (float l : LOGITS) total += Math.exp(l - lse);
        assertThat(total).isCloseTo(1.0, within(1e-9));
        int[] top = new Logprobs(3).top(LOGITS, 0, 5, 3);
        assertThat(new int[]{top[0], top[1], top[2]}).containsExactly(1, 4, 2);
    }
}

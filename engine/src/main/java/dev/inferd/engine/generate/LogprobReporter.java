package dev.inferd.engine.generate;

import dev.inferd.engine.sample.Logprobs;
import dev.inferd.engine.tokenizer.Tokenizer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Builds the log-probability report of a chosen token and its top alternatives. */
final class LogprobReporter {
    private final Tokenizer tokenizer;
    private final int top;
    private final Logprobs logprobs;

    LogprobReporter(Tokenizer tokenizer, int top) {
        this.tokenizer = tokenizer;
        this.top = top;
        this.logprobs = new Logprobs(top);
    }

    TokenLogprob report(int token, float[] logits, int offset, int vocab) {
        double lse = Logprobs.logSumExp(logits, offset, vocab);
        List<TokenLogprob> alternatives = new ArrayList<>(top);
        if (top > 0) {
            int[] ids = logprobs.top(logits, offset, vocab, top);
            for (int i = 0; i < Math.min(top, vocab); i++) {
                alternatives.add(entry(ids[i], (float) (logits[offset + ids[i]] - lse), List.of()));
            }
        }
        return entry(token, (float) (logits[offset + token] - lse), alternatives);
    }

    private TokenLogprob entry(int token, float logprob, List<TokenLogprob> alternatives) {
        byte[] bytes = tokenizer.tokenBytes(token);
        return new TokenLogprob(token, new String(bytes, StandardCharsets.UTF_8), bytes, logprob, List.copyOf(alternatives));
    }
}

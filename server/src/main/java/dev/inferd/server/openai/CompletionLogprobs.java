package dev.inferd.server.openai;

import dev.inferd.engine.generate.TokenLogprob;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The legacy {@code logprobs} object: parallel arrays, alternatives as {@code {token: logprob}} maps,
 * and each token's offset (in characters) into the choice's full text.
 */
public record CompletionLogprobs(List<String> tokens, List<Double> tokenLogprobs,
                                 List<Map<String, Double>> topLogprobs, List<Integer> textOffset) {

    /**
     * @param startOffset where the first token sits in the choice's text (the length of what came
     *                    before it: the echoed prompt or earlier chunks)
     */
    public static CompletionLogprobs of(List<TokenLogprob> tokens, int startOffset) {
        List<String> texts = new ArrayList<>(tokens.size());
        List<Double> logprobs = new ArrayList<>(tokens.size());
        List<Map<String, Double>> tops = new ArrayList<>(tokens.size());
        List<Integer> offsets = new ArrayList<>(tokens.size());
        int offset = startOffset;
        for (TokenLogprob t : tokens) {
            texts.add(t.text());
            logprobs.add(WireLogprobs.finite(t.logprob()));
            Map<String, Double> top = new LinkedHashMap<>();
            for (TokenLogprob alt : t.top()) top.putIfAbsent(alt.text(), WireLogprobs.finite(alt.logprob()));
            tops.add(top);
            offsets.add(offset);
            offset += t.text().codePointCount(0, t.text().length());
        }
        return new CompletionLogprobs(texts, logprobs, tops, offsets);
    }

    /** Appends another piece of the same choice (non-streaming responses collect pieces). */
    public CompletionLogprobs plus(CompletionLogprobs more) {
        List<String> t = new ArrayList<>(tokens);
        t.addAll(more.tokens);
        List<Double> l = new ArrayList<>(tokenLogprobs);
        l.addAll(more.tokenLogprobs);
        List<Map<String, Double>> top = new ArrayList<>(topLogprobs);
        top.addAll(more.topLogprobs);
        List<Integer> o = new ArrayList<>(textOffset);
        o.addAll(more.textOffset);
        return new CompletionLogprobs(t, l, top, o);
    }
}

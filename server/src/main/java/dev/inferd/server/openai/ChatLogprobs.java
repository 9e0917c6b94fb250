package dev.inferd.server.openai;

import dev.inferd.engine.generate.TokenLogprob;

import java.util.ArrayList;
import java.util.List;

/** A chat choice's {@code logprobs}: {@code {content:[...], refusal:null}}. */
public record ChatLogprobs(List<TokenEntry> content, List<TokenEntry> refusal) {

    /** {@code top_logprobs} is always an array, empty for the alternatives themselves. */
    public record TokenEntry(String token, double logprob, int[] bytes, List<TopEntry> topLogprobs) {
    }

    public record TopEntry(String token, double logprob, int[] bytes) {
    }

    public static ChatLogprobs of(List<TokenLogprob> tokens) {
        List<TokenEntry> content = new ArrayList<>(tokens.size());
        for (TokenLogprob t : tokens) {
            List<TopEntry> top = new ArrayList<>(t.top().size());
            for (TokenLogprob alt : t.top()) {
                top.add(new TopEntry(alt.text(), WireLogprobs.finite(alt.logprob()), WireLogprobs.unsigned(alt.bytes())));
            }
            content.add(new TokenEntry(t.text(), WireLogprobs.finite(t.logprob()), WireLogprobs.unsigned(t.bytes()), top));
        }
        return new ChatLogprobs(content, null);
    }
}

package dev.inferd.server.openai;

/** Small conversions shared by the chat and legacy log-probability shapes. */
final class WireLogprobs {

    /** What OpenAI reports for a token the model gives no chance at all. */
    static final double FLOOR = -9999.0;

    private WireLogprobs() {
    }

    /** JSON has no -Infinity or NaN: a banned token (logit bias -100) would otherwise break the body. */
    static double finite(float logprob) {
        return Float.isFinite(logprob) ? Math.max(logprob, FLOOR) : FLOOR;
    }

    /** Token bytes as the unsigned ints OpenAI sends. */
    static int[] unsigned(byte[] bytes) {
        if (bytes == null) return null;
        int[] out = new int[bytes.length];
        for (int i = 0; i < bytes.length; i++) out[i] = bytes[i] & 0xFF;
        return out;
    }
}

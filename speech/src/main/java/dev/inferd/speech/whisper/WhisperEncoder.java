package dev.inferd.speech.whisper;

/**
 * Whisper's audio encoder: two convolutions (kernel 3; the second with stride 2) with GELU, the
 * positional embedding, the transformer blocks and a final norm. One 30 s window of {@code nMels x
 * 3000} log-mel values in, {@code 1500 x width} states out. Buffers are made once per encoder.
 */
final class WhisperEncoder {
    private final Layers w;
    private final int nMels, d, ctx, heads;
    private final float[] columns1, columns2, conv1Out, x, norm, q, k, v, attn, proj, up;
    private final Ops.Scratch scratch;

    WhisperEncoder(Layers w) {
        this.w = w;
        var h = w.hparams();
        nMels = h.nMels();
        d = h.nAudioState();
        ctx = h.nAudioCtx();
        heads = h.nAudioHead();
        int frames = 2 * ctx;
        columns1 = new float[frames * 3 * nMels];
        conv1Out = new float[frames * d];
        columns2 = new float[ctx * 3 * d];
        x = new float[ctx * d];
        norm = new float[ctx * d];
        q = new float[ctx * d];
        k = new float[ctx * d];
        v = new float[ctx * d];
        attn = new float[ctx * d];
        proj = new float[ctx * d];
        up = new float[ctx * 4 * d];
        scratch = new Ops.Scratch(ctx, ctx, d / heads);
    }

    int width() { return d; }

    int positions() { return ctx; }

    /** {@code mel} is {@code nMels x 2*ctx}, mel by mel; returns the {@code ctx x width} states (a buffer reused by the next call). */
    float[] encode(float[] mel) {
        int frames = 2 * ctx;
        // conv1: stride 1, padding 1; a column is (channel, tap) with the tap fastest
        for (int t = 0; t < frames; t++) {
            int o = t * 3 * nMels;
            for (int c = 0; c < nMels; c++) {
                int row = c * frames;
                columns1[o + 3 * c] = t > 0 ? mel[row + t - 1] : 0;
                columns1[o + 3 * c + 1] = mel[row + t];
                columns1[o + 3 * c + 2] = t + 1 < frames ? mel[row + t + 1] : 0;
            }
        }
        w.conv1Matrix().multiply(columns1, frames, conv1Out, frames);
        Ops.addBias(conv1Out, frames, w.conv1Bias());
        Ops.gelu(conv1Out, frames * d);
        // conv2: stride 2, padding 1, over the time-major conv1 output
        for (int t = 0; t < ctx; t++) {
            int o = t * 3 * d;
            int center = 2 * t;
            for (int c = 0; c < d; c++) {
                columns2[o + 3 * c] = center > 0 ? conv1Out[(center - 1) * d + c] : 0;
                columns2[o + 3 * c + 1] = conv1Out[center * d + c];
                columns2[o + 3 * c + 2] = center + 1 < frames ? conv1Out[(center + 1) * d + c] : 0;
            }
        }
        w.conv2().multiply(columns2, ctx, x, ctx);
        Ops.addBias(x, ctx, w.conv2Bias());
        Ops.gelu(x, ctx * d);
        Ops.add(x, w.encoderPositions(), ctx * d);
        for (Layers.Block b : w.encoder()) {
            Ops.layerNorm(x, ctx, d, b.attnNorm(), norm);
            Ops.linear(b.attn().query(), norm, ctx, q);
            Ops.linear(b.attn().key(), norm, ctx, k);
            Ops.linear(b.attn().value(), norm, ctx, v);
            Ops.fullAttention(q, ctx, k, v, ctx, d, heads, attn, scratch);
            Ops.linear(b.attn().out(), attn, ctx, proj);
            Ops.add(x, proj, ctx * d);
            Ops.layerNorm(x, ctx, d, b.mlpNorm(), norm);
            Ops.linear(b.mlpUp(), norm, ctx, up);
            Ops.gelu(up, ctx * 4 * d);
            Ops.linear(b.mlpDown(), up, ctx, proj);
            Ops.add(x, proj, ctx * d);
        }
        Ops.layerNorm(x, ctx, d, w.encoderNorm(), norm);
        return norm;
    }
}

package dev.inferd.speech.whisper;

import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.WeightMatrix;

/** The weights of a Whisper model, read from its file: matrices stay in the mapping, small vectors in the heap. */
record Layers(WhisperHParams hparams, float[] conv1Bias, WeightMatrix conv2, float[] conv2Bias,
              WeightMatrix conv1Matrix, float[] encoderPositions, Block[] encoder, Norm encoderNorm,
              WeightMatrix tokenEmbedding, float[] decoderPositions, Block[] decoder, Norm decoderNorm) {

    record Linear(WeightMatrix weight, float[] bias) {
    }

    record Norm(float[] weight, float[] bias) {
    }

    record AttentionWeights(Linear query, Linear key, Linear value, Linear out) {
    }

    /** A residual block: self-attention, cross-attention (decoder only, else null) and the MLP, each after its norm. */
    record Block(Norm attnNorm, AttentionWeights attn, Norm crossNorm, AttentionWeights cross, Norm mlpNorm, Linear mlpUp, Linear mlpDown) {
    }

    static Layers load(WhisperModelFile f) {
        var h = f.hparams();
        var encoder = new Block[h.nAudioLayer()];
        for (int l = 0; l < encoder.length; l++) encoder[l] = block(f, "encoder.blocks." + l, false);
        var decoder = new Block[h.nTextLayer()];
        for (int l = 0; l < decoder.length; l++) decoder[l] = block(f, "decoder.blocks." + l, true);
        var conv1 = f.tensor("encoder.conv1.weight");
        var conv2 = f.tensor("encoder.conv2.weight");
        check(conv1.ne(), 3, h.nMels(), h.nAudioState());
        check(conv2.ne(), 3, h.nAudioState(), h.nAudioState());
        // a kernel row is (input channel, tap) with the tap fastest: the im2col layout the convolutions build
        var conv1Matrix = WeightMatrices.of(conv1.type(), h.nAudioState(), 3 * h.nMels(), f.data(conv1));
        var conv2Matrix = WeightMatrices.of(conv2.type(), h.nAudioState(), 3 * h.nAudioState(), f.data(conv2));
        var te = f.matrix("decoder.token_embedding.weight");
        if (te.rows() != h.nVocab() || te.cols() != h.nTextState()) {
            throw new WhisperFormatException("decoder.token_embedding.weight is " + te.rows() + "x" + te.cols());
        }
        return new Layers(h, f.floats("encoder.conv1.bias"), conv2Matrix, f.floats("encoder.conv2.bias"),
                conv1Matrix, f.floats("encoder.positional_embedding"), encoder, norm(f, "encoder.ln_post"),
                te, f.floats("decoder.positional_embedding"), decoder, norm(f, "decoder.ln"));
    }

    private static void check(long[] ne, long... expected) {
        if (!java.util.Arrays.equals(ne, expected)) {
            throw new WhisperFormatException("a convolution has dims " + java.util.Arrays.toString(ne) + ", expected " + java.util.Arrays.toString(expected));
        }
    }

    private static Block block(WhisperModelFile f, String p, boolean cross) {
        return new Block(norm(f, p + ".attn_ln"), attention(f, p + ".attn"),
                cross ? norm(f, p + ".cross_attn_ln") : null, cross ? attention(f, p + ".cross_attn") : null,
                norm(f, p + ".mlp_ln"), linear(f, p + ".mlp.0", true), linear(f, p + ".mlp.2", true));
    }

    private static AttentionWeights attention(WhisperModelFile f, String p) {
        return new AttentionWeights(linear(f, p + ".query", true), linear(f, p + ".key", false),
                linear(f, p + ".value", true), linear(f, p + ".out", true));
    }

    private static Linear linear(WhisperModelFile f, String p, boolean bias) {
        return new Linear(f.matrix(p + ".weight"), bias ? f.floats(p + ".bias") : null);
    }

    private static Norm norm(WhisperModelFile f, String p) {
        return new Norm(f.floats(p + ".weight"), f.floats(p + ".bias"));
    }
}

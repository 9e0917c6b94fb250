package dev.inferd.speech.whisper;

import dev.inferd.engine.tensor.parallel.WorkerPool;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * Whisper's text decoder with its caches: the self-attention keys and values of the tokens so far
 * and the cross-attention keys and values of the current window's audio, computed once per window.
 * {@link #decode} takes the next tokens (the prompt at once, then one at a time) and gives the
 * logits after the last of them. Buffers are made once per decoder.
 */
final class WhisperDecoder {
    private final Layers w;
    private final int d, heads, dh, textCtx, audioCtx, vocab;
    private final float[][] selfK, selfV, crossK, crossV;
    private final float[] x, norm, q, k, v, attn, proj, up, logits;
    private final float[][] headScores;
    private final AttentionJob job = new AttentionJob();
    private int length;
    /** While capturing: per layer and head, the alignment head's index into {@link #captured}, or -1. */
    private int[][] captureIndex;
    /** Per alignment head, the scaled cross-attention scores ({@code position x audioCtx}) before the softmax. */
    private float[][] captured;

    WhisperDecoder(Layers w) {
        this.w = w;
        var h = w.hparams();
        d = h.nTextState();
        heads = h.nTextHead();
        dh = d / heads;
        textCtx = h.nTextCtx();
        audioCtx = h.nAudioCtx();
        vocab = h.nVocab();
        int layers = h.nTextLayer();
        selfK = new float[layers][textCtx * d];
        selfV = new float[layers][textCtx * d];
        crossK = new float[layers][audioCtx * d];
        crossV = new float[layers][audioCtx * d];
        x = new float[textCtx * d];
        norm = new float[Math.max(textCtx, audioCtx) * d];
        q = new float[textCtx * d];
        k = new float[textCtx * d];
        v = new float[textCtx * d];
        attn = new float[textCtx * d];
        proj = new float[textCtx * d];
        up = new float[textCtx * 4 * d];
        headScores = new float[heads][Math.max(textCtx, audioCtx)];
        logits = new float[vocab];
    }

    int contextLength() { return textCtx; }

    /** Tokens decoded since the last {@link #reset}. */
    int length() { return length; }

    /** Sets the audio the decoder attends to: the encoder's {@code audioCtx x width} states. */
    void setAudio(float[] audio) {
        for (int l = 0; l < w.decoder().length; l++) {
            var cross = w.decoder()[l].cross();
            Ops.linear(cross.key(), audio, audioCtx, crossK[l]);
            Ops.linear(cross.value(), audio, audioCtx, crossV[l]);
        }
        reset();
    }

    /**
     * From now on, the cross-attention scores of {@code heads} (scaled, before the softmax) of every
     * decoded position {@code p} go to {@code into[k][p * audioCtx ...]}, {@code k} the head's index
     * in {@code heads}; null stops it.
     */
    void capture(AlignmentHeads heads, float[][] into) {
        if (heads == null) {
            captureIndex = null;
            captured = null;
            return;
        }
        captureIndex = new int[w.decoder().length][this.heads];
        for (int[] row : captureIndex) Arrays.fill(row, -1);
        for (int k = 0; k < heads.count(); k++) {
            if (heads.layers()[k] < captureIndex.length && heads.heads()[k] < this.heads) captureIndex[heads.layers()[k]][heads.heads()[k]] = k;
        }
        captured = into;
    }

    int audioPositions() { return audioCtx; }

    /** Forgets the tokens so far (the audio stays). */
    void reset() {
        length = 0;
    }

    /** Runs the first {@code count} of {@code tokens} at the next positions; returns the logits after the last (a buffer the next call reuses). */
    float[] decode(int[] tokens, int count) {
        if (length + count > textCtx) throw new IllegalStateException("the decoder holds " + textCtx + " tokens");
        for (int i = 0; i < count; i++) {
            w.tokenEmbedding().dequantizeRow(tokens[i], x, i * d);
            int pos = (length + i) * d;
            for (int c = 0; c < d; c++) x[i * d + c] += w.decoderPositions()[pos + c];
        }
        float scale = (float) (1 / Math.sqrt(dh));
        for (int l = 0; l < w.decoder().length; l++) {
            Layers.Block b = w.decoder()[l];
            // self-attention over the cache and the new tokens, causal
            Ops.layerNorm(x, count, d, b.attnNorm(), norm);
            Ops.linear(b.attn().query(), norm, count, q);
            Ops.linear(b.attn().key(), norm, count, k);
            Ops.linear(b.attn().value(), norm, count, v);
            System.arraycopy(k, 0, selfK[l], length * d, count * d);
            System.arraycopy(v, 0, selfV[l], length * d, count * d);
            for (int i = 0; i < count; i++) attend(q, i, selfK[l], selfV[l], length + i + 1, scale, null, 0);
            Ops.linear(b.attn().out(), attn, count, proj);
            Ops.add(x, proj, count * d);
            // cross-attention over the audio
            Ops.layerNorm(x, count, d, b.crossNorm(), norm);
            Ops.linear(b.cross().query(), norm, count, q);
            for (int i = 0; i < count; i++) attend(q, i, crossK[l], crossV[l], audioCtx, scale, captureIndex == null ? null : captureIndex[l], length + i);
            Ops.linear(b.cross().out(), attn, count, proj);
            Ops.add(x, proj, count * d);
            // MLP
            Ops.layerNorm(x, count, d, b.mlpNorm(), norm);
            Ops.linear(b.mlpUp(), norm, count, up);
            Ops.gelu(up, count * 4 * d);
            Ops.linear(b.mlpDown(), up, count, proj);
            Ops.add(x, proj, count * d);
        }
        length += count;
        Ops.layerNorm(x, count, d, w.decoderNorm(), norm);
        float[] last = Arrays.copyOfRange(norm, (count - 1) * d, count * d);
        w.tokenEmbedding().multiply(last, 1, logits);
        return logits;
    }

    /** Query row {@code i} of {@code q} over the first {@code n} keys and values, every head, into row {@code i} of {@code attn}; heads spread over the worker pool when long. */
    private void attend(float[] q, int i, float[] keys, float[] values, int n, float scale, int[] captureHeads, int position) {
        job.q = q;
        job.i = i;
        job.keys = keys;
        job.values = values;
        job.n = n;
        job.scale = scale;
        job.captureHeads = captureHeads;
        job.position = position;
        if (n >= PARALLEL_POSITIONS) {
            WorkerPool.shared().parallelFor(heads, job);
        } else {
            for (int h = 0; h < heads; h++) job.run(h, 0);
        }
    }

    /** From this many keys on, the heads of one query are spread over the worker pool. */
    private static final int PARALLEL_POSITIONS = 256;
    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;

    /** One query's attention, head by head: the arguments of {@link #attend}, kept in fields so that no call allocates. */
    private final class AttentionJob implements WorkerPool.Task {
        float[] q, keys, values;
        int i, n, position;
        float scale;
        int[] captureHeads;

        @Override
        public void run(int h, int worker) {
            float[] scores = headScores[h];
            int qo = i * d + h * dh;
            int bound = SPECIES.loopBound(dh);
            for (int j = 0; j < n; j++) {
                int ko = j * d + h * dh;
                var acc = FloatVector.zero(SPECIES);
                int c = 0;
                for (; c < bound; c += SPECIES.length()) {
                    acc = FloatVector.fromArray(SPECIES, q, qo + c).fma(FloatVector.fromArray(SPECIES, keys, ko + c), acc);
                }
                float s = acc.reduceLanes(VectorOperators.ADD);
                for (; c < dh; c++) s += q[qo + c] * keys[ko + c];
                scores[j] = s;
            }
            if (captureHeads != null && captureHeads[h] >= 0) {
                float[] into = captured[captureHeads[h]];
                for (int j = 0; j < n; j++) into[position * n + j] = scores[j] * scale;
            }
            Ops.softmax(scores, 0, n, scale);
            int oo = i * d + h * dh;
            Arrays.fill(attn, oo, oo + dh, 0);
            for (int j = 0; j < n; j++) {
                float p = scores[j];
                int vo = j * d + h * dh;
                var pv = FloatVector.broadcast(SPECIES, p);
                int c = 0;
                for (; c < bound; c += SPECIES.length()) {
                    FloatVector.fromArray(SPECIES, values, vo + c).fma(pv, FloatVector.fromArray(SPECIES, attn, oo + c)).intoArray(attn, oo + c);
                }
                for (; c < dh; c++) attn[oo + c] += p * values[vo + c];
            }
        }
    }
}

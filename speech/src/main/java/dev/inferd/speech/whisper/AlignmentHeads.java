package dev.inferd.speech.whisper;

import java.util.ArrayList;
import java.util.List;

/**
 * The decoder's cross-attention heads whose weights follow the audio in time, used for word
 * timestamps. For the published sizes these are OpenAI's alignment heads (the same lists as
 * whisper.cpp's presets), chosen by the model's shape: tiny, base, small and medium (multilingual
 * and .en), large-v3 and large-v3-turbo (128 mel bins). A shape with no known list (large-v1 and
 * large-v2 cannot be told apart from their files, or any other shape) uses every head of the top half
 * of the decoder's layers, Whisper's own default when a model has no list.
 *
 * @param layers the head's decoder layer, per alignment head
 * @param heads  the head's index within its layer
 */
record AlignmentHeads(int[] layers, int[] heads) {

    int count() { return layers.length; }

    /** The index into this list of ({@code layer}, {@code head}), or -1. */
    int indexOf(int layer, int head) {
        for (int i = 0; i < layers.length; i++) if (layers[i] == layer && heads[i] == head) return i;
        return -1;
    }

    static AlignmentHeads of(WhisperHParams h) {
        int[][] known = known(h);
        if (known != null) {
            var out = new AlignmentHeads(new int[known.length], new int[known.length]);
            for (int i = 0; i < known.length; i++) {
                out.layers[i] = known[i][0];
                out.heads[i] = known[i][1];
            }
            return out;
        }
        return topHalf(h.nTextLayer(), h.nTextHead());
    }

    static AlignmentHeads topHalf(int layers, int headsPerLayer) {
        var ls = new ArrayList<Integer>();
        var hs = new ArrayList<Integer>();
        for (int l = layers / 2; l < layers; l++) {
            for (int h = 0; h < headsPerLayer; h++) {
                ls.add(l);
                hs.add(h);
            }
        }
        return new AlignmentHeads(ints(ls), ints(hs));
    }

    private static int[] ints(List<Integer> list) {
        return list.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int[][] known(WhisperHParams h) {
        boolean en = !h.multilingual();
        int state = h.nTextState(), layers = h.nTextLayer(), heads = h.nTextHead();
        if (h.nAudioCtx() != 1500 || h.nAudioState() != state) return null;
        if (state == 384 && layers == 4 && heads == 6) {
            return en ? new int[][]{{1, 0}, {2, 0}, {2, 5}, {3, 0}, {3, 1}, {3, 2}, {3, 3}, {3, 4}}
                    : new int[][]{{2, 2}, {3, 0}, {3, 2}, {3, 3}, {3, 4}, {3, 5}};
        }
        if (state == 512 && layers == 6 && heads == 8) {
            return en ? new int[][]{{3, 3}, {4, 7}, {5, 1}, {5, 5}, {5, 7}}
                    : new int[][]{{3, 1}, {4, 2}, {4, 3}, {4, 7}, {5, 1}, {5, 2}, {5, 4}, {5, 6}};
        }
        if (state == 768 && layers == 12 && heads == 12) {
            return en ? new int[][]{{6, 6}, {7, 0}, {7, 3}, {7, 8}, {8, 2}, {8, 5}, {8, 7}, {9, 0}, {9, 4}, {9, 8}, {9, 10},
                    {10, 0}, {10, 1}, {10, 2}, {10, 3}, {10, 6}, {10, 11}, {11, 2}, {11, 4}}
                    : new int[][]{{5, 3}, {5, 9}, {8, 0}, {8, 4}, {8, 7}, {8, 8}, {9, 0}, {9, 7}, {9, 9}, {10, 5}};
        }
        if (state == 1024 && layers == 24 && heads == 16) {
            return en ? new int[][]{{11, 4}, {14, 1}, {14, 12}, {14, 14}, {15, 4}, {16, 0}, {16, 4}, {16, 9}, {17, 12}, {17, 14},
                    {18, 7}, {18, 10}, {18, 15}, {20, 0}, {20, 3}, {20, 9}, {20, 14}, {21, 12}}
                    : new int[][]{{13, 15}, {15, 4}, {15, 15}, {16, 1}, {20, 0}, {23, 4}};
        }
        if (state == 1280 && heads == 20 && h.nMels() == 128 && !en) {
            if (layers == 32) return new int[][]{{7, 0}, {10, 17}, {12, 18}, {13, 12}, {16, 1}, {17, 14}, {19, 11}, {21, 4}, {24, 1}, {25, 6}};
            if (layers == 4) return new int[][]{{2, 4}, {2, 11}, {3, 3}, {3, 6}, {3, 11}, {3, 14}};
        }
        return null;
    }
}

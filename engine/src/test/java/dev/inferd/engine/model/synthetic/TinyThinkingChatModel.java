package dev.inferd.engine.model.synthetic;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFWriter;
import dev.inferd.engine.tensor.format.Quantizer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A tiny Llama with random weights, a SentencePiece vocabulary with byte tokens (so it can spell any
 * JSON) and a chat template in Qwen3's manner: tools in the system turn, calls as
 * {@code <tool_call>...</tool_call>}, and a generation prompt that opens a thinking block unless
 * {@code enable_thinking} is false. Its control tokens stand at fixed ids, for tests that bias them.
 */
public final class TinyThinkingChatModel {
    public static final int VOCAB_SIZE = 3000;
    public static final int IM_START = 2990;
    public static final int IM_END = 2991;
    public static final int THINK = 2992;
    public static final int END_THINK = 2993;
    public static final int TOOL_CALL = 2994;
    public static final int END_TOOL_CALL = 2995;

    /** Written for these tests, in the manner of Qwen3's template (not a copy of it). */
    public static final String TEMPLATE = """
            {%- if tools %}<|im_start|>system
            # Tools
            <tools>{% for tool in tools %}
            {{ tool | tojson }}{% endfor %}
            </tools>
            To call a function, reply <tool_call>
            {"name": <function-name>, "arguments": <args-json-object>}
            </tool_call><|im_end|>
            {% endif %}
            {%- for m in messages %}
            {%- if m.role == 'assistant' and m.tool_calls %}<|im_start|>assistant
            {% for tc in m.tool_calls %}<tool_call>
            {"name": "{{ tc.function.name }}", "arguments": {{ tc.function.arguments | tojson }}}
            </tool_call>{% endfor %}<|im_end|>
            {% elif m.role == 'tool' %}<|im_start|>user
            <tool_response>
            {{ m.content }}
            </tool_response><|im_end|>
            {% else %}<|im_start|>{{ m.role }}
            {{ m.content }}<|im_end|>
            {% endif %}
            {%- endfor %}
            {%- if add_generation_prompt %}<|im_start|>assistant
            {% if enable_thinking is defined and enable_thinking is false %}<think>

            </think>

            {% else %}<think>
            {% endif %}{% endif %}""";

    /** The same template without the {@code enable_thinking} switch: its generation prompt always opens {@code <think>}. */
    public static final String ALWAYS_THINKING_TEMPLATE = TEMPLATE.replace("{% if enable_thinking is defined and "
            + "enable_thinking is false %}<think>\n\n</think>\n\n{% else %}<think>\n{% endif %}", "<think>\n");

    private static final int DIM = 64;
    private static final int HEADS = 4;
    private static final int KV_HEADS = 2;
    private static final int FFN = 128;
    private static final int CONTEXT = 2048;

    private TinyThinkingChatModel() {
    }

    public static Path write(Path file) throws IOException {
        return write(file, TEMPLATE);
    }

    /** The same model with another chat template. */
    public static Path write(Path file, String template) throws IOException {
        var random = new SplittableRandom(VOCAB_SIZE);
        int headDim = DIM / HEADS;
        var w = new GGUFWriter()
                .put("general.architecture", "llama")
                .put("general.name", "tiny-thinking-chat")
                .put("llama.context_length", CONTEXT)
                .put("llama.embedding_length", DIM)
                .put("llama.block_count", 1)
                .put("llama.feed_forward_length", FFN)
                .put("llama.attention.head_count", HEADS)
                .put("llama.attention.head_count_kv", KV_HEADS)
                .put("llama.attention.layer_norm_rms_epsilon", 1e-5f)
                .put("llama.rope.freq_base", 10_000f)
                .put("llama.rope.dimension_count", headDim)
                .put("llama.vocab_size", VOCAB_SIZE);
        SyntheticVocabulary.addTo(w, VOCAB_SIZE, Map.of(IM_START, "<|im_start|>", IM_END, "<|im_end|>", THINK, "<think>",
                END_THINK, "</think>", TOOL_CALL, "<tool_call>", END_TOOL_CALL, "</tool_call>"));
        // As in Qwen3's files: the thinking and call tags are user-defined tokens (their text is output text),
        // the turn tags control tokens.
        int[] types = new int[VOCAB_SIZE];
        for (int i = 0; i < VOCAB_SIZE; i++) types[i] = i == 0 ? 2 : i <= 2 ? 3 : i < 3 + 256 ? 6 : 1;
        types[IM_START] = 3;
        types[IM_END] = 3;
        for (int id : new int[] {THINK, END_THINK, TOOL_CALL, END_TOOL_CALL}) types[id] = 4;
        w.put("tokenizer.ggml.token_type", types);
        w.put("tokenizer.chat_template", template);
        matrix(w, "token_embd.weight", VOCAB_SIZE, DIM, 1f, random);
        vector(w, "blk.0.attn_norm.weight", DIM);
        matrix(w, "blk.0.attn_q.weight", DIM, DIM, 1.5f / (float) Math.sqrt(DIM), random);
        matrix(w, "blk.0.attn_k.weight", KV_HEADS * headDim, DIM, 1.5f / (float) Math.sqrt(DIM), random);
        matrix(w, "blk.0.attn_v.weight", KV_HEADS * headDim, DIM, 1f / (float) Math.sqrt(DIM), random);
        matrix(w, "blk.0.attn_output.weight", DIM, DIM, 1f / (float) Math.sqrt(DIM), random);
        vector(w, "blk.0.ffn_norm.weight", DIM);
        matrix(w, "blk.0.ffn_gate.weight", FFN, DIM, 1f / (float) Math.sqrt(DIM), random);
        matrix(w, "blk.0.ffn_up.weight", FFN, DIM, 1f / (float) Math.sqrt(DIM), random);
        matrix(w, "blk.0.ffn_down.weight", DIM, FFN, 1f / (float) Math.sqrt(FFN), random);
        vector(w, "output_norm.weight", DIM);
        matrix(w, "output.weight", VOCAB_SIZE, DIM, 3f / (float) Math.sqrt(DIM), random);
        w.write(file);
        return file;
    }

    private static void matrix(GGUFWriter w, String name, int rows, int cols, float std, SplittableRandom random) {
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) v[i] = (float) (random.nextGaussian() * std);
        w.addTensor(name, GGMLType.F32, new long[] {cols, rows}, Quantizer.quantize(GGMLType.F32, v));
    }

    private static void vector(GGUFWriter w, String name, int n) {
        float[] v = new float[n];
        java.util.Arrays.fill(v, 1f);
        w.addTensor(name, GGMLType.F32, new long[] {n}, Quantizer.quantize(GGMLType.F32, v));
    }
}

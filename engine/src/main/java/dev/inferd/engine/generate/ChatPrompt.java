package dev.inferd.engine.generate;

import dev.inferd.engine.chat.ChatFormat;
import dev.inferd.engine.chat.ChatTemplate;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.chat.jinja.TemplateException;
import dev.inferd.engine.chat.jinja.TemplateRaisedException;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.tokenizer.Tokenizer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A conversation turned into prompt tokens: the model's chat template (or the plain fallback when the
 * file has none) rendered with a generation prompt, then tokenized with special tokens recognised.
 */
public final class ChatPrompt {
    private final ChatFormat format;
    private final ChatTemplate template;
    private final Tokenizer tokenizer;
    private final Map<String, Object> variables;

    public ChatPrompt(String templateSource, Tokenizer tokenizer) {
        this.tokenizer = tokenizer;
        String bos = tokenizer.bos() >= 0 ? tokenizer.tokenText(tokenizer.bos()) : "";
        String eos = tokenizer.eos() >= 0 ? tokenizer.tokenText(tokenizer.eos()) : "";
        this.format = ChatFormat.of(templateSource, bos, eos);
        this.template = format.template();
        this.variables = Map.of("bos_token", bos, "eos_token", eos);
    }

    /** The template stored in the file ({@code tokenizer.chat_template}), if any. */
    public static ChatPrompt forModel(GGUFFile gguf, Tokenizer tokenizer) {
        return new ChatPrompt(gguf.getString("tokenizer.chat_template", null), tokenizer);
    }

    /** The rendered prompt text. A template that rejects the conversation gives an IllegalArgumentException. */
    public String render(List<ChatMessage> messages) {
        List<Map<String, Object>> maps = new ArrayList<>(messages.size());
        for (ChatMessage m : messages) {
            Map<String, Object> map = new HashMap<>();
            map.put("role", m.role());
            map.put("content", m.content());
            maps.add(map);
        }
        try {
            return template.render(maps, true, variables);
        } catch (TemplateException e) {
            // Mostly the template refusing the conversation (e.g. a system message it does not allow).
            throw new IllegalArgumentException(e instanceof TemplateRaisedException
                    ? e.getMessage() : "the model's chat template failed on this conversation: " + e.getMessage(), e);
        }
    }

    public int[] tokens(List<ChatMessage> messages) {
        return withoutDoubleBos(tokenizer.encode(render(messages), true, true));
    }

    /** As {@link #tokens}, refusing early a conversation of more than {@code maxTokens} tokens (one more for a doubled BOS). */
    public int[] tokens(List<ChatMessage> messages, int maxTokens) {
        return withoutDoubleBos(tokenizer.encode(render(messages), true, true, maxTokens + 1));
    }

    /** The model's chat conventions: conversations with tools and reasoning in, parsed output out. */
    public ChatFormat format() {
        return format;
    }

    /** The tokens of a prompt rendered by {@link #format()}. */
    public int[] tokens(RenderedPrompt prompt) {
        return withoutDoubleBos(tokenizer.encode(prompt.text(), true, true));
    }

    /** As {@link #tokens(RenderedPrompt)}, refusing early a prompt of more than {@code maxTokens} tokens (one more for a doubled BOS). */
    public int[] tokens(RenderedPrompt prompt, int maxTokens) {
        return withoutDoubleBos(tokenizer.encode(prompt.text(), true, true, maxTokens + 1));
    }

    /** Templates that write {@code bos_token} themselves would otherwise get a second BOS from the tokenizer. */
    private int[] withoutDoubleBos(int[] tokens) {
        int bos = tokenizer.bos();
        if (tokens.length >= 2 && bos >= 0 && tokens[0] == bos && tokens[1] == bos) {
            return Arrays.copyOfRange(tokens, 1, tokens.length);
        }
        return tokens;
    }
}

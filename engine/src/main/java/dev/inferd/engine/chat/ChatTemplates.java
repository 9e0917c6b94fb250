package dev.inferd.engine.chat;

import java.time.Clock;

/** Picks the chat template for a model from its {@code tokenizer.chat_template} metadata. */
public final class ChatTemplates {
    private ChatTemplates() {
    }

    /**
     * @param templateOrNull the model's Jinja chat template, or null/blank when it has none
     * @param bosToken the text of the tokenizer's BOS token (the {@code bos_token} variable), may be null
     * @param eosToken the text of the tokenizer's EOS token (the {@code eos_token} variable), may be null
     * @return a {@link JinjaChatTemplate}, or the {@link PlainChatTemplate} fallback
     * @throws dev.inferd.engine.chat.jinja.TemplateException when the template does not parse
     */
    public static ChatTemplate of(String templateOrNull, String bosToken, String eosToken) {
        return of(templateOrNull, bosToken, eosToken, Clock.systemDefaultZone());
    }

    /** As {@link #of(String, String, String)}, with the clock {@code strftime_now} reads. */
    public static ChatTemplate of(String templateOrNull, String bosToken, String eosToken, Clock clock) {
        if (templateOrNull == null || templateOrNull.isBlank()) {
            return new PlainChatTemplate();
        }
        return new JinjaChatTemplate(templateOrNull, bosToken, eosToken, clock);
    }
}

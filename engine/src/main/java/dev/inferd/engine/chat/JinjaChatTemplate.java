package dev.inferd.engine.chat;

import dev.inferd.engine.chat.jinja.Template;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A model's own {@code tokenizer.chat_template}, rendered as Hugging Face transformers'
 * {@code apply_chat_template} does. The template is compiled once; {@link #render} is thread-safe.
 *
 * <p>Variables: {@code messages}, {@code add_generation_prompt}, {@code bos_token},
 * {@code eos_token}, then every entry of {@code extraVariables} ({@code tools}, {@code documents},
 * {@code date_string}, ...), which may also override the first four. {@code strftime_now} reads the
 * clock given here, so tests can fix the date.
 */
public final class JinjaChatTemplate implements ChatTemplate {
    private final Template template;
    private final String bosToken;
    private final String eosToken;
    private final Clock clock;

    public JinjaChatTemplate(String source, String bosToken, String eosToken) {
        this(source, bosToken, eosToken, Clock.systemDefaultZone());
    }

    /** @throws dev.inferd.engine.chat.jinja.TemplateException when the template does not parse (with its line) */
    public JinjaChatTemplate(String source, String bosToken, String eosToken, Clock clock) {
        this.template = Template.compile(Objects.requireNonNull(source, "source"));
        this.bosToken = bosToken == null ? "" : bosToken;
        this.eosToken = eosToken == null ? "" : eosToken;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * @throws dev.inferd.engine.chat.jinja.TemplateRaisedException when the template rejects the
     *         conversation itself (its own message, e.g. "System role not supported")
     * @throws dev.inferd.engine.chat.jinja.TemplateException for any other rendering failure
     */
    @Override
    public String render(List<Map<String, Object>> messages, boolean addGenerationPrompt, Map<String, Object> extraVariables) {
        Map<String, Object> variables = new HashMap<>();
        variables.put("messages", messages);
        variables.put("add_generation_prompt", addGenerationPrompt);
        variables.put("bos_token", bosToken);
        variables.put("eos_token", eosToken);
        if (extraVariables != null) {
            variables.putAll(extraVariables);
        }
        return template.render(variables, clock);
    }
}

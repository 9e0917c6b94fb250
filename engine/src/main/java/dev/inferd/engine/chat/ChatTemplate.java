package dev.inferd.engine.chat;

import java.util.List;
import java.util.Map;

/**
 * Renders a conversation into the prompt text a chat model was trained on.
 */
public interface ChatTemplate {

    /**
     * @param messages each a map with at least {@code role} and {@code content}, as templates index them
     * @param addGenerationPrompt end with the opening of an assistant turn
     * @param extraVariables other template variables ({@code bos_token}, {@code eos_token}, {@code tools}, ...)
     */
    String render(List<Map<String, Object>> messages, boolean addGenerationPrompt, Map<String, Object> extraVariables);
}

package io.sightline.routing.prompt;

import java.util.Map;

/**
 * A parsed chat template (parsed once, rendered many times; thread-safe). The context is plain
 * Java: {@code Map<String,Object>}, {@code List<Object>}, {@code String}, {@code Long}/{@code
 * Double}, {@code Boolean} and null – what {@link ChatRequestNormalizer} produces.
 */
public interface ChatTemplate {

  /**
   * Renders the template.
   *
   * @throws PromptEncodingException kind {@code TEMPLATE_ERROR} on any render error, including
   *     {@code raise_exception(...)} in the template. Implementations must never return a partially
   *     rendered prompt.
   */
  String render(Map<String, Object> context) throws PromptEncodingException;
}

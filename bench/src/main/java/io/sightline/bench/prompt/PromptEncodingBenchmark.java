package io.sightline.bench.prompt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.prompt.hf.ByteLevelBpeTokenizer;
import io.sightline.prompt.hf.DjlTokenizer;
import io.sightline.prompt.hf.HfModel;
import io.sightline.prompt.hf.HfModels;
import io.sightline.prompt.hf.JinjaChatTemplate;
import io.sightline.routing.prompt.ChatRequestNormalizer;
import io.sightline.routing.prompt.EncodedPrompt;
import io.sightline.routing.prompt.TemplatedPromptEncoder;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Prompt encoding cost on the routing path, single thread (docs/prompt-encoding.md):
 *
 * <ul>
 *   <li>{@code render*}: the chat template, parsed once at load, rendered for an already normalised
 *       conversation (a short multimodal chat – system + 3 turns + 1 image – and the 8k one);
 *   <li>{@code tokenize8k}: DJL tokenization of an 8,192-token rendered prompt (the target
 *       is ≤ 10 ms on one core);
 *   <li>{@code encodeChat8k}: the whole exact path for the 8k request – vLLM normalisation, render,
 *       tokenize (plain DJL, no segment cache), placeholder scan;
 *   <li>{@code multiTurn8kPlain} / {@code multiTurn8kSegmentCache}: a 16-turn conversation of about
 *       8k tokens whose last user turn is new on every call (a growing chat): plain DJL versus
 *       {@link io.sightline.prompt.hf.SegmentCachingTokenizer}, where the earlier turns are cache
 *       hits.
 * </ul>
 *
 * <p>The 8k text is the model's own model card repeated; the request is cut so the rendered prompt
 * is 8,192 tokens (± a few at the cut) for Qwen2.5-VL.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Dai.djl.offline=true"})
public class PromptEncodingBenchmark {

  static final int TARGET_TOKENS = 8192;

  @Param({"qwen2_5_vl", "llava_1_5"})
  public String model;

  @Param({BenchModels.DEFAULT_ROOT})
  public String modelsRoot;

  private final ObjectMapper json = new ObjectMapper();
  private TemplatedPromptEncoder encoder;
  private TemplatedPromptEncoder plainEncoder;
  private JsonNode multiTurn;
  private ObjectNode multiTurnLastText;
  private long counter;
  private DjlTokenizer tokenizer;
  private ByteLevelBpeTokenizer javaTokenizer; // null where the tokenizer shape is not supported
  private JinjaChatTemplate template;
  private Map<String, Object> shortContext;
  private Map<String, Object> longContext;
  private JsonNode longRequest;
  private String longPrompt;
  public int longPromptTokens;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    HfModel hf = HfModels.load(BenchModels.dir(modelsRoot, model));
    encoder = hf.exactEncoder().orElseThrow();
    tokenizer = hf.tokenizer().orElseThrow();
    template = hf.chatTemplate().orElseThrow();
    javaTokenizer =
        ByteLevelBpeTokenizer.load(hf.directory().resolve("tokenizer.json"), tokenizer)
            .orElse(null);
    plainEncoder =
        new TemplatedPromptEncoder(
            template, tokenizer, hf.specialTokens(), hf.imagePlaceholderId());

    JsonNode shortRequest =
        json.readTree(
            """
            {"messages":[
              {"role":"system","content":"You are a helpful assistant that describes images."},
              {"role":"user","content":[{"type":"image_url","image_url":{"url":"https://e.com/a.png"}},
                {"type":"text","text":"What is in this picture?"}]},
              {"role":"assistant","content":"A red bicycle leaning against a brick wall."},
              {"role":"user","content":"What colour is the wall?"}]}""");
    shortContext = context(hf, shortRequest);

    String card = Files.readString(hf.directory().resolve("UPSTREAM_MODEL_CARD.md"));
    StringBuilder text = new StringBuilder();
    while (tokenizer.encode(text.toString(), false).length < TARGET_TOKENS) {
      text.append(card).append('\n');
    }
    // Cut the user text so the rendered prompt lands on the target (binary search on chars).
    int lo = 0;
    int hi = text.length();
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      int n = encoder.encodeChat(request(text.substring(0, mid))).tokenIds().length;
      if (n <= TARGET_TOKENS) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    longRequest = request(text.substring(0, lo));
    longContext = context(hf, longRequest);
    EncodedPrompt encoded = encoder.encodeChat(longRequest);
    longPrompt = encoded.prompt();
    longPromptTokens = encoded.tokenIds().length;

    // 16 turns (8 user/assistant pairs) of ~500 tokens each, then a short new user turn.
    ObjectNode conv = json.createObjectNode();
    ArrayNode msgs = conv.putArray("messages");
    msgs.addObject().put("role", "system").put("content", "You are a helpful assistant.");
    int chunk = text.length() / 16;
    for (int t = 0; t < 16; t++) {
      msgs.addObject()
          .put("role", t % 2 == 0 ? "user" : "assistant")
          .put("content", text.substring(t * chunk, (t + 1) * chunk));
    }
    ObjectNode last = msgs.addObject().put("role", "user");
    multiTurnLastText = last.putArray("content").addObject().put("type", "text");
    multiTurnLastText.put("text", "And what about the next step?");
    multiTurn = conv;
    System.out.println(
        "[prompt-bench] "
            + model
            + ": multi-turn prompt has "
            + plainEncoder.encodeChat(conv).tokenIds().length
            + " tokens");
    System.out.println(
        "[prompt-bench] " + model + ": 8k prompt has " + longPromptTokens + " tokens");
  }

  private JsonNode request(String userText) {
    ObjectNode req = json.createObjectNode();
    ArrayNode messages = req.putArray("messages");
    messages.addObject().put("role", "system").put("content", "Answer using the document.");
    ObjectNode user = messages.addObject().put("role", "user");
    ArrayNode content = user.putArray("content");
    content
        .addObject()
        .put("type", "image_url")
        .putObject("image_url")
        .put("url", "https://e.com/p.png");
    content.addObject().put("type", "text").put("text", userText);
    return req;
  }

  private static Map<String, Object> context(HfModel hf, JsonNode request) throws Exception {
    ChatRequestNormalizer.Normalized n = new ChatRequestNormalizer().normalize(request);
    Map<String, Object> ctx = new HashMap<>(hf.specialTokens());
    ctx.put("messages", n.messages());
    ctx.put("tools", n.tools());
    ctx.put("add_generation_prompt", true);
    return ctx;
  }

  @Benchmark
  public String renderShortChat() throws Exception {
    return template.render(shortContext);
  }

  @Benchmark
  public String render8k() throws Exception {
    return template.render(longContext);
  }

  @Benchmark
  public int[] tokenize8k() throws Exception {
    return tokenizer.encode(longPrompt, false);
  }

  /** Pure-Java byte-level BPE, pre-token cache warm (Qwen only; LLaVA returns null). */
  @Benchmark
  public int[] tokenize8kJava() throws Exception {
    return javaTokenizer == null ? null : javaTokenizer.encode(longPrompt, false);
  }

  /** Pure-Java byte-level BPE with its pre-token cache cleared first (first-time text). */
  @Benchmark
  public int[] tokenize8kJavaColdCache() throws Exception {
    if (javaTokenizer == null) {
      return null;
    }
    javaTokenizer.clearCache();
    return javaTokenizer.encode(longPrompt, false);
  }

  @Benchmark
  public EncodedPrompt encodeChat8k() throws Exception {
    return plainEncoder.encodeChat(longRequest);
  }

  @Benchmark
  public EncodedPrompt multiTurn8kPlain() throws Exception {
    multiTurnLastText.put("text", "And what about step " + (counter++) + "?");
    return plainEncoder.encodeChat(multiTurn);
  }

  @Benchmark
  public EncodedPrompt multiTurn8kSegmentCache() throws Exception {
    multiTurnLastText.put("text", "And what about step " + (counter++) + "?");
    return encoder.encodeChat(multiTurn);
  }
}

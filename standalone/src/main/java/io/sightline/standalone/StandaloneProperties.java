package io.sightline.standalone;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The embedded default's own settings, under {@code sightline.standalone}. */
@ConfigurationProperties(prefix = "sightline.standalone")
public class StandaloneProperties {

  /**
   * Number of simulated vLLM workers to start and register; 0 starts none (use real workers
   * registered through the admin API or configuration instead).
   */
  private int workers = 4;

  /** First HTTP port of the simulated workers (worker i gets base + i); 0 picks free ports. */
  private int workerBasePort = 0;

  /**
   * Speed-up factor of the simulated workers' timing model (llm-d's 8B/H100 profile: 30 ms + 250
   * µs/token prefill, 12 ms/token decode); 1 is real time.
   */
  private double workerSpeedup = 1.0;

  /** KV blocks per simulated worker (of {@link #blockSize} tokens each). */
  private int workerNumBlocks = 4096;

  /**
   * Register the default model (Qwen2.5-VL-7B-Instruct, whose configuration and tokenizer files
   * ship with Sightline) at start-up.
   */
  private boolean registerDefaultModel = true;

  /** Served name of the default model. */
  private String modelName = "Qwen/Qwen2.5-VL-7B-Instruct";

  /**
   * Directory with the default model's Hugging Face files; empty unpacks the bundled copy into
   * {@link #modelCacheDir}.
   */
  private Path modelDir;

  /** Where the bundled model files are unpacked. */
  private Path modelCacheDir =
      Path.of(
          System.getProperty("java.io.tmpdir"), "sightline", "models", "Qwen2.5-VL-7B-Instruct");

  /** KV block size of the default model card and the simulated workers. */
  private int blockSize = 16;

  /**
   * Whether the frontend downloads and decodes http(s) images for the default model (content-
   * addressed mm_hash: the same picture as URL and as {@code data:} URI hashes the same).
   */
  private boolean mediaDecoder = true;

  /** Print the start-up banner with the URL, the API key to use and a ready-to-paste curl. */
  private boolean banner = true;

  public int getWorkers() {
    return workers;
  }

  public void setWorkers(int workers) {
    this.workers = workers;
  }

  public int getWorkerBasePort() {
    return workerBasePort;
  }

  public void setWorkerBasePort(int workerBasePort) {
    this.workerBasePort = workerBasePort;
  }

  public double getWorkerSpeedup() {
    return workerSpeedup;
  }

  public void setWorkerSpeedup(double workerSpeedup) {
    this.workerSpeedup = workerSpeedup;
  }

  public int getWorkerNumBlocks() {
    return workerNumBlocks;
  }

  public void setWorkerNumBlocks(int workerNumBlocks) {
    this.workerNumBlocks = workerNumBlocks;
  }

  public boolean isRegisterDefaultModel() {
    return registerDefaultModel;
  }

  public void setRegisterDefaultModel(boolean registerDefaultModel) {
    this.registerDefaultModel = registerDefaultModel;
  }

  public String getModelName() {
    return modelName;
  }

  public void setModelName(String modelName) {
    this.modelName = modelName;
  }

  public Path getModelDir() {
    return modelDir;
  }

  public void setModelDir(Path modelDir) {
    this.modelDir = modelDir;
  }

  public Path getModelCacheDir() {
    return modelCacheDir;
  }

  public void setModelCacheDir(Path modelCacheDir) {
    this.modelCacheDir = modelCacheDir;
  }

  public int getBlockSize() {
    return blockSize;
  }

  public void setBlockSize(int blockSize) {
    this.blockSize = blockSize;
  }

  public boolean isMediaDecoder() {
    return mediaDecoder;
  }

  public void setMediaDecoder(boolean mediaDecoder) {
    this.mediaDecoder = mediaDecoder;
  }

  public boolean isBanner() {
    return banner;
  }

  public void setBanner(boolean banner) {
    this.banner = banner;
  }
}

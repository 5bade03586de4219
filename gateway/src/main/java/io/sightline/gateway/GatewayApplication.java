package io.sightline.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The gateway as its own process. There is deliberately no component scan: all wiring lives in
 * {@link io.sightline.gateway.config.GatewayAutoConfiguration} (an auto-configuration with
 * {@code @ConditionalOnMissingBean} beans), so the standalone app gets exactly the same beans when
 * it embeds the gateway next to the registry and router.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class GatewayApplication {
  public static void main(String[] args) {
    SpringApplication.run(GatewayApplication.class, args);
  }
}

package io.sightline.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sightline.gateway.support.ScriptedRouter;
import io.sightline.router.api.RoutingService;
import io.sightline.router.web.HttpRoutingService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

class GatewayAutoConfigurationTest {

  @Test
  void explicitRouterUrlWinsOverAnInProcessRouter() {
    StaticListableBeanFactory beans = new StaticListableBeanFactory();
    ScriptedRouter local = new ScriptedRouter();
    beans.addBean("router", local);
    GatewayProperties props = new GatewayProperties();

    assertThat(GatewayAutoConfiguration.router(beans.getBeanProvider(RoutingService.class), props))
        .isSameAs(local);

    props.setRouterUrl("http://router:8082");
    assertThat(GatewayAutoConfiguration.router(beans.getBeanProvider(RoutingService.class), props))
        .isInstanceOf(HttpRoutingService.class);
  }

  @Test
  void noRouterAtAllFailsAtStartUpWithAClearMessage() {
    StaticListableBeanFactory empty = new StaticListableBeanFactory();
    assertThatThrownBy(
            () ->
                GatewayAutoConfiguration.router(
                    empty.getBeanProvider(RoutingService.class), new GatewayProperties()))
        .hasMessageContaining("router-url");
  }
}

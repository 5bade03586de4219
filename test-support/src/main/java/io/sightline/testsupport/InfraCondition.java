package io.sightline.testsupport;

import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips (or, with {@code infra.required}, fails) tests whose {@link UsesInfra} services are absent.
 */
public final class InfraCondition implements ExecutionCondition {
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    Optional<UsesInfra> uses =
        context.getElement().map(InfraCondition::annotation).filter(a -> a != null);
    if (uses.isEmpty()) {
      return ConditionEvaluationResult.enabled("no infrastructure needed");
    }
    List<Service> missing = new ArrayList<>();
    for (Service s : uses.get().value()) {
      if (Infra.find(s).isEmpty()) {
        missing.add(s);
      }
    }
    if (missing.isEmpty()) {
      return ConditionEvaluationResult.enabled("infrastructure available");
    }
    String why = "no endpoint (env/-D) and no Docker for " + missing;
    if (Infra.required()) {
      throw new IllegalStateException(why + " while infra.required=true");
    }
    return ConditionEvaluationResult.disabled(why);
  }

  private static UsesInfra annotation(AnnotatedElement e) {
    UsesInfra direct = e.getAnnotation(UsesInfra.class);
    if (direct != null || !(e instanceof Class<?> c)) {
      return direct;
    }
    Class<?> enclosing = c.getEnclosingClass();
    return enclosing == null ? null : enclosing.getAnnotation(UsesInfra.class);
  }
}

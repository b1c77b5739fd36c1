package com.acme;

import org.aspectj.lang.annotation.*;

@Aspect
public class Tracer {
    @Before("execution(* *(..) && args(x)")
    public void enter(Object x) {
    }
}

public aspect MailMonitor extends Monitor {
    protected pointcut monitored(): call(* Main.Mailer.send(..));

    protected String label() {
        return "mail";
    }
}

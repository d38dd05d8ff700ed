import "./styles.css";
import { startApp } from "./app";
import { registerServiceWorker } from "./offline";

// The offline cache is filled once Python is ready: its downloads do not compete with the page's.
void startApp(document.getElementById("app")!).then(registerServiceWorker);

import "./styles.css";
import { startApp } from "./app";
import { registerServiceWorker } from "./offline";

startApp(document.getElementById("app")!);
registerServiceWorker();

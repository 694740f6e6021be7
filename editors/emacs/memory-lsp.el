;;; memory-lsp.el --- memory-lsp beside your own language server  -*- lexical-binding: t; -*-

;; Version: 0.1
;; Package-Requires: ((emacs "28.1") (jsonrpc "1.0.14"))
;; Keywords: tools, languages

;;; Commentary:

;; Eglot holds one server per project and major mode, so memory-lsp cannot sit next to your
;; Python or Go server inside eglot.  This package runs `memory-lsp serve' as a second
;; connection of its own (jsonrpc.el, built in since Emacs 27, the library eglot itself is built
;; on): `memory-lsp-mode' sends the buffer's text to it and adds a flymake backend (memories and
;; drifted citations as diagnostics) and an eldoc function (the memories about the symbol at
;; point), beside whatever eglot (Emacs 29 built in; Emacs 28: Debian's elpa-eglot) or lsp-mode
;; does in the same buffer.
;;
;;   (require 'memory-lsp)
;;   (memory-lsp-enable-everywhere)   ; memory-lsp-mode in every mode of `memory-lsp-modes'
;;   (setq eldoc-documentation-strategy #'eldoc-documentation-compose) ; both servers' hovers
;;
;; Commands: `memory-lsp-teach' (prompts for the text and the type, cites the region or the
;; line), `memory-lsp-code-actions' (teach through a draft, mark outdated or wrong, pin,
;; re-anchor), `memory-lsp-impact', `memory-lsp-search', `memory-lsp-context',
;; `memory-lsp-describe' (the hover in a buffer), `memory-lsp-shutdown'.
;; Limits: no code lenses (Emacs has no built-in lens display), no completion, no symbols.

;;; Code:

(require 'cl-lib)
(require 'eldoc)
(require 'flymake)
(require 'jsonrpc)
(require 'subr-x)
(require 'url-util)

(defgroup memory-lsp nil "Project memories from memory-lsp." :group 'tools)

(defcustom memory-lsp-command nil
  "The server's command line.
nil: the project's .venv/bin/memory-lsp, else memory-lsp on PATH."
  :type '(choice (const nil) (repeat string)))

(defcustom memory-lsp-root-markers
  '(".memory" ".git" "pyproject.toml" "setup.py" "package.json" "go.mod" "Cargo.toml" "pom.xml"
    "build.gradle" "Gemfile" "Makefile")
  "Files or folders whose presence marks a workspace root."
  :type '(repeat string))

(defcustom memory-lsp-modes
  '(python-mode python-ts-mode js-mode js-ts-mode typescript-mode typescript-ts-mode tsx-ts-mode
    go-mode go-ts-mode rust-mode rust-ts-mode c-mode c-ts-mode c++-mode c++-ts-mode java-mode
    java-ts-mode ruby-mode ruby-ts-mode)
  "Major modes `memory-lsp-enable-everywhere' turns `memory-lsp-mode' on in."
  :type '(repeat symbol))

(defcustom memory-lsp-initialization-options nil
  "The settings tree of the README as a plist.
For example (:diagnostics (:maxPerFile 10))."
  :type 'sexp)

(defconst memory-lsp-types
  '("gotcha" "policy" "decision" "dead_end" "requirement" "error_pattern" "workflow_recipe"
    "module_insight" "preference" "pattern" "causal_dependency" "fact"))

(defvar memory-lsp--connections (make-hash-table :test #'equal) "Workspace root -> connection.")
(defvar-local memory-lsp--connection nil)
(defvar-local memory-lsp--version 0)
(defvar-local memory-lsp--diagnostics nil "The last published LSP diagnostics, a vector.")
(defvar-local memory-lsp--report-fn nil)
(defvar-local memory-lsp--change-timer nil)
(defvar memory-lsp-mode)

(defclass memory-lsp-connection (jsonrpc-process-connection)
  ((root :initarg :root :reader memory-lsp--root)))

;;; Paths, URIs, positions

(defun memory-lsp--find-root (file)
  "The workspace of FILE.
Above .memory for a teach draft, else the nearest root marker."
  (let ((dir (file-name-directory (expand-file-name file))))
    (if (string-match "\\`\\(.*\\)/\\.memory/drafts/\\'" dir)
        (match-string 1 dir)
      (when-let ((found (locate-dominating-file
                         dir (lambda (d) (cl-some (lambda (m) (file-exists-p (expand-file-name m d)))
                                                  memory-lsp-root-markers)))))
        (directory-file-name (expand-file-name found))))))

(defun memory-lsp--uri (file)
  (concat "file://" (url-hexify-string (expand-file-name file) url-path-allowed-chars)))

(defun memory-lsp--file (uri)
  (url-unhex-string (string-remove-prefix "file://" uri)))

(defun memory-lsp--relative (file root)
  (file-relative-name (expand-file-name file) root))

(defun memory-lsp--utf16 (text)
  "TEXT's length in UTF-16 code units, the unit of LSP characters."
  (+ (length text) (cl-count-if (lambda (c) (> c #xFFFF)) text)))

(defun memory-lsp--position (&optional pos)
  (save-excursion
    (when pos (goto-char pos))
    (list :line (1- (line-number-at-pos nil t))
          :character (memory-lsp--utf16 (buffer-substring-no-properties (line-beginning-position) (point))))))

(defun memory-lsp--point (position)
  "The buffer position of an LSP POSITION."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char (point-min))
      (forward-line (plist-get position :line))
      (let ((end (line-end-position)) (units (plist-get position :character)))
        (while (and (> units 0) (< (point) end))
          (setq units (- units (if (> (char-after) #xFFFF) 2 1)))
          (forward-char)))
      (point))))

(defun memory-lsp--document ()
  (list :uri (memory-lsp--uri buffer-file-name)))

(defun memory-lsp--language ()
  (if (string-match-p "/\\.memory/drafts/" (or buffer-file-name "")) "markdown"
    (string-remove-suffix "-ts" (string-remove-suffix "-mode" (symbol-name major-mode)))))

;;; The connection

(defun memory-lsp--command (root)
  (or memory-lsp-command
      (let ((venv (expand-file-name ".venv/bin/memory-lsp" root)))
        (list (if (file-executable-p venv) venv "memory-lsp") "serve"))))

(defun memory-lsp--capabilities ()
  (list :textDocument (list :synchronization (list :didSave t :willSave :json-false)
                            :hover (list :contentFormat ["markdown" "plaintext"])
                            :publishDiagnostics (list :relatedInformation :json-false)
                            :codeAction (list :codeActionLiteralSupport
                                              (list :codeActionKind (list :valueSet ["quickfix" "refactor"]))))
        :window (list :showDocument (list :support t))
        :workspace (list :applyEdit :json-false :workspaceFolders t)))

(defun memory-lsp--connect (root)
  "The running connection for ROOT, started and initialized if there is none."
  (let ((conn (gethash root memory-lsp--connections)))
    (if (and conn (jsonrpc-running-p conn)) conn
      (let* ((name (format "memory-lsp %s" (file-name-nondirectory root)))
             (command (memory-lsp--command root))
             (uri (memory-lsp--uri root)))
        (setq conn (make-instance
                    'memory-lsp-connection :name name :root root
                    :process (lambda ()
                               (let ((default-directory (file-name-as-directory root)))
                                 (make-process :name name :command command :connection-type 'pipe
                                               :coding 'utf-8-emacs-unix :noquery t
                                               :stderr (get-buffer-create (format "*%s stderr*" name)))))
                    :request-dispatcher #'memory-lsp--on-request
                    :notification-dispatcher #'memory-lsp--on-notification
                    :on-shutdown (lambda (_) (remhash root memory-lsp--connections))))
        (jsonrpc-request conn :initialize
                         (list :processId (emacs-pid) :rootUri uri :rootPath root
                               :clientInfo (list :name "memory-lsp.el")
                               :workspaceFolders (vector (list :uri uri :name root))
                               :capabilities (memory-lsp--capabilities)
                               :initializationOptions (or memory-lsp-initialization-options
                                                          (make-hash-table)))
                         :timeout 30)
        (jsonrpc-notify conn :initialized (make-hash-table))
        (puthash root conn memory-lsp--connections)
        conn))))

(defun memory-lsp--buffer (uri)
  (find-buffer-visiting (memory-lsp--file uri)))

(defun memory-lsp--on-notification (_conn method params)
  (pcase method
    ('textDocument/publishDiagnostics
     (when-let ((buffer (memory-lsp--buffer (plist-get params :uri))))
       (with-current-buffer buffer
         (setq memory-lsp--diagnostics (plist-get params :diagnostics))
         (memory-lsp--report))))
    ('window/showMessage (message "%s" (plist-get params :message)))))

(defun memory-lsp--on-request (_conn method params)
  (pcase method
    ('window/showDocument (memory-lsp--show-document params))
    ('workspace/configuration (make-vector (length (plist-get params :items)) nil))
    ((or 'workspace/codeLens/refresh 'workspace/diagnostic/refresh 'client/registerCapability
         'client/unregisterCapability 'window/workDoneProgress/create)
     nil)
    (_ (signal 'jsonrpc-error `((jsonrpc-error-code . -32601)
                                (jsonrpc-error-message . ,(format "memory-lsp.el: %s unhandled" method)))))))

(defun memory-lsp--show-document (params)
  "Open the document of PARAMS (the teach draft).
In `memory-lsp-mode', so that its save reaches the server."
  (if (eq (plist-get params :external) t) (list :success :json-false)
    (let ((buffer (find-file-noselect (memory-lsp--file (plist-get params :uri))))
          (selection (plist-get params :selection)))
      (with-current-buffer buffer
        (unless memory-lsp-mode (memory-lsp-mode 1))
        (when selection (goto-char (memory-lsp--point (plist-get selection :start)))))
      (if (eq (plist-get params :takeFocus) :json-false) (display-buffer buffer) (pop-to-buffer buffer))
      (list :success t))))

;;; Document sync

(defun memory-lsp--did-open ()
  (setq memory-lsp--version 1)
  (jsonrpc-notify memory-lsp--connection :textDocument/didOpen
                  (list :textDocument (list :uri (memory-lsp--uri buffer-file-name)
                                            :languageId (memory-lsp--language) :version 1
                                            :text (save-restriction (widen) (buffer-substring-no-properties
                                                                             (point-min) (point-max)))))))

(defun memory-lsp--flush ()
  "Send the buffer's whole text if it changed since the last time."
  (when memory-lsp--change-timer
    (cancel-timer memory-lsp--change-timer)
    (setq memory-lsp--change-timer nil)
    (when (and memory-lsp--connection (jsonrpc-running-p memory-lsp--connection))
      (jsonrpc-notify memory-lsp--connection :textDocument/didChange
                      (list :textDocument (list :uri (memory-lsp--uri buffer-file-name)
                                                :version (cl-incf memory-lsp--version))
                            :contentChanges (vector (list :text (save-restriction
                                                                  (widen)
                                                                  (buffer-substring-no-properties
                                                                   (point-min) (point-max))))))))))

(defun memory-lsp--after-change (&rest _)
  (let ((buffer (current-buffer)))
    (when memory-lsp--change-timer (cancel-timer memory-lsp--change-timer))
    (setq memory-lsp--change-timer
          (run-with-idle-timer 0.3 nil (lambda () (when (buffer-live-p buffer)
                                                    (with-current-buffer buffer (memory-lsp--flush))))))))

(defun memory-lsp--did-save ()
  (memory-lsp--flush)
  (jsonrpc-notify memory-lsp--connection :textDocument/didSave (list :textDocument (memory-lsp--document))))

(defun memory-lsp--did-close ()
  (when (and memory-lsp--connection (jsonrpc-running-p memory-lsp--connection))
    (jsonrpc-notify memory-lsp--connection :textDocument/didClose (list :textDocument (memory-lsp--document)))))

;;; Diagnostics (flymake) and hovers (eldoc)

(defun memory-lsp-flymake (report-fn &rest _)
  "Flymake backend: the diagnostics memory-lsp published for this buffer."
  (setq memory-lsp--report-fn report-fn)
  (memory-lsp--report))

(defun memory-lsp--report ()
  (when memory-lsp--report-fn
    (condition-case nil
        (memory-lsp--report-now)
      ;; flymake no longer runs our backend here (someone reset the list): wait for its next call
      (error (setq memory-lsp--report-fn nil)))))

(defun memory-lsp--report-now ()
  (funcall memory-lsp--report-fn
           (cl-loop for d across (or memory-lsp--diagnostics [])
                    for range = (plist-get d :range)
                    for beg = (memory-lsp--point (plist-get range :start))
                    for end = (memory-lsp--point (plist-get range :end))
                    collect (flymake-make-diagnostic
                             (current-buffer) beg
                             (if (> end beg) end (save-excursion (goto-char beg) (line-end-position)))
                             (pcase (plist-get d :severity) (1 :error) (2 :warning) (_ :note))
                             (format "%s [memory %s]" (plist-get d :message) (or (plist-get d :code) ""))))
         :region (cons (point-min) (point-max))))

(defun memory-lsp--hover-text (hover)
  (let ((contents (plist-get hover :contents)))
    (cond ((stringp contents) contents)
          ((plist-get contents :value))
          ((vectorp contents) (mapconcat (lambda (c) (if (stringp c) c (plist-get c :value))) contents "\n\n")))))

(defun memory-lsp--position-params ()
  (list :textDocument (memory-lsp--document) :position (memory-lsp--position)))

(defun memory-lsp-eldoc (callback &rest _)
  "Eldoc function: the memories about the symbol at point."
  (when (and memory-lsp--connection (jsonrpc-running-p memory-lsp--connection))
    (memory-lsp--flush)
    (jsonrpc-async-request memory-lsp--connection :textDocument/hover (memory-lsp--position-params)
                           :success-fn (lambda (hover) (funcall callback (and hover (memory-lsp--hover-text hover))))
                           :error-fn (lambda (_) (funcall callback nil))
                           :deferred :textDocument/hover)
    t))

(defun memory-lsp-hover ()
  "The hover text at point (nil when there is nothing to say)."
  (memory-lsp--flush)
  (when-let ((hover (jsonrpc-request (memory-lsp--conn) :textDocument/hover (memory-lsp--position-params)
                                     :timeout 30)))
    (memory-lsp--hover-text hover)))

;;; The minor mode

(defun memory-lsp--conn ()
  "This buffer's connection, or a user error saying how to get one."
  (or (and memory-lsp--connection (jsonrpc-running-p memory-lsp--connection) memory-lsp--connection)
      (user-error "memory-lsp: no server for this buffer (M-x memory-lsp-mode)")))

;;;###autoload
(define-minor-mode memory-lsp-mode
  "Memory-lsp beside the buffer's other language server.
Diagnostics (flymake), hovers (eldoc) and the memory-lsp-* commands."
  :lighter " Mem"
  (cond
   ((not memory-lsp-mode)
    (memory-lsp--did-close)
    (remove-hook 'after-change-functions #'memory-lsp--after-change t)
    (remove-hook 'after-save-hook #'memory-lsp--did-save t)
    (remove-hook 'kill-buffer-hook #'memory-lsp--did-close t)
    (remove-hook 'flymake-diagnostic-functions #'memory-lsp-flymake t)
    (remove-hook 'eldoc-documentation-functions #'memory-lsp-eldoc t)
    (setq memory-lsp--connection nil))
   ((not (and buffer-file-name (memory-lsp--find-root buffer-file-name)))
    (setq memory-lsp-mode nil)
    (message "memory-lsp: %s is in no workspace (no %s above it)" (or buffer-file-name (buffer-name))
             (string-join memory-lsp-root-markers ", ")))
   (t
    (setq memory-lsp--connection (memory-lsp--connect (memory-lsp--find-root buffer-file-name)))
    (memory-lsp--did-open)
    (add-hook 'after-change-functions #'memory-lsp--after-change nil t)
    (add-hook 'after-save-hook #'memory-lsp--did-save nil t)
    (add-hook 'kill-buffer-hook #'memory-lsp--did-close nil t)
    (add-hook 'flymake-diagnostic-functions #'memory-lsp-flymake nil t)
    (add-hook 'eldoc-documentation-functions #'memory-lsp-eldoc nil t)
    (flymake-mode 1)
    (eldoc-mode 1))))

(defun memory-lsp--rehook ()
  "Put our flymake backend and eldoc function back after eglot.
Eglot's managed mode sets both lists buffer-locally to its own when it starts
\(and back when it stops), which would drop memory-lsp's."
  (when memory-lsp-mode
    (add-hook 'flymake-diagnostic-functions #'memory-lsp-flymake nil t)
    (add-hook 'eldoc-documentation-functions #'memory-lsp-eldoc nil t)
    (when flymake-mode (flymake-start))))

(add-hook 'eglot-managed-mode-hook #'memory-lsp--rehook)

;;;###autoload
(defun memory-lsp-enable-everywhere ()
  "Turn `memory-lsp-mode' on in every major mode of `memory-lsp-modes'."
  (dolist (mode memory-lsp-modes)
    (add-hook (intern (format "%s-hook" mode)) #'memory-lsp-mode)))

(defun memory-lsp-shutdown ()
  "Stop every memory-lsp connection (shutdown, exit)."
  (interactive)
  (maphash (lambda (_root conn)
             (ignore-errors (jsonrpc-request conn :shutdown nil :timeout 3))
             (ignore-errors (jsonrpc-notify conn :exit nil))
             (ignore-errors (jsonrpc-shutdown conn t)))
           memory-lsp--connections)
  (clrhash memory-lsp--connections))

(provide 'memory-lsp)
;; the interactive commands live beside this file, which need not be on `load-path'
(let ((load-path (cons (file-name-directory (or load-file-name (bound-and-true-p byte-compile-current-file)
                                                default-directory))
                       load-path)))
  (require 'memory-lsp-commands))
;;; memory-lsp.el ends here

;;; memory-lsp-commands.el --- teach, impact, search, context, code actions  -*- lexical-binding: t; -*-

;;; Commentary:

;; The interactive commands of memory-lsp.el; each runs one `memory.*' command through
;; workspace/executeCommand on the buffer's connection.  Loaded by memory-lsp.el.

;;; Code:

(require 'cl-lib)
(require 'grep)
(require 'jsonrpc)
(require 'subr-x)
(require 'thingatpt)

(declare-function memory-lsp--conn "memory-lsp")
(declare-function memory-lsp--root "memory-lsp")
(declare-function memory-lsp--relative "memory-lsp")
(declare-function memory-lsp--flush "memory-lsp")
(declare-function memory-lsp--document "memory-lsp")
(declare-function memory-lsp--position "memory-lsp")
(declare-function memory-lsp--uri "memory-lsp")
(declare-function memory-lsp-hover "memory-lsp")
(defvar memory-lsp-types)

(defun memory-lsp-run (command arguments)
  "Run COMMAND (\"memory.teach\", ...) with ARGUMENTS, a plist; its result, a plist."
  (jsonrpc-request (memory-lsp--conn) :workspace/executeCommand
                   (list :command command :arguments (vector (or arguments (make-hash-table))))
                   :timeout 60))

(defun memory-lsp--here ()
  "This buffer's file relative to its workspace."
  (memory-lsp--relative buffer-file-name (memory-lsp--root (memory-lsp--conn))))

(defun memory-lsp--cite (beg end)
  "The citation of the lines from BEG to END (one line when they are on it)."
  (let ((first (line-number-at-pos beg t))
        (last (line-number-at-pos (if (and (> end beg) (= end (save-excursion (goto-char end) (line-beginning-position))))
                                      (1- end) end)
                                  t)))
    (if (= first last) (format "%s:%d" (memory-lsp--here) first)
      (format "%s:%d-%d" (memory-lsp--here) first last))))

;;;###autoload
(defun memory-lsp-teach (text type beg end)
  "Teach a memory: TEXT of TYPE citing the lines from BEG to END.
Interactively, the region's lines, else the line at point."
  (interactive
   (let* ((beg (if (use-region-p) (region-beginning) (point)))
          (end (if (use-region-p) (region-end) (point)))
          (cite (memory-lsp--cite beg end)))
     (list (read-string (format "Memory about %s: " cite))
           (completing-read "Type: " memory-lsp-types nil t nil nil "gotcha")
           beg end)))
  (when (string-empty-p (string-trim text))
    (user-error "memory-lsp: nothing taught (no text)"))
  (let* ((cite (memory-lsp--cite beg end))
         (result (memory-lsp-run "memory.teach" (list :text text :type type :cite (vector cite)))))
    (message "memory-lsp: %s memory %s (%s)" (if (eq (plist-get result :created) t) "stored" "already known as")
             (plist-get result :id) cite)
    result))

;;;###autoload
(defun memory-lsp-code-actions ()
  "Pick one of memory-lsp's code actions at point or on the region.
Teach through a draft, mark a memory outdated or wrong, pin, re-anchor."
  (interactive)
  (memory-lsp--flush)
  (let* ((beg (if (use-region-p) (region-beginning) (point)))
         (end (if (use-region-p) (region-end) (point)))
         (actions (append (jsonrpc-request
                           (memory-lsp--conn) :textDocument/codeAction
                           (list :textDocument (memory-lsp--document)
                                 :range (list :start (memory-lsp--position beg) :end (memory-lsp--position end))
                                 :context (list :diagnostics []))
                           :timeout 30)
                          nil))
         (titles (mapcar (lambda (a) (plist-get a :title)) actions))
         (title (if actions (completing-read "memory-lsp: " titles nil t)
                  (user-error "memory-lsp: no actions here")))
         (command (plist-get (cl-find title actions :key (lambda (a) (plist-get a :title)) :test #'equal)
                             :command)))
    (jsonrpc-request (memory-lsp--conn) :workspace/executeCommand
                     (list :command (plist-get command :command) :arguments (plist-get command :arguments))
                     :timeout 60)))

(defun memory-lsp--target-at-point ()
  "The impact target at point: `path::Qualified.Name', else this file.
The innermost indexed symbol named by the word at point."
  (let* ((word (thing-at-point 'symbol t))
         (line (1- (line-number-at-pos nil t)))
         (uri (memory-lsp--uri buffer-file-name))
         (symbols (and word (append (jsonrpc-request (memory-lsp--conn) :workspace/symbol
                                                     (list :query word) :timeout 30)
                                    nil)))
         best best-line)
    (dolist (s symbols)
      (let* ((location (plist-get s :location))
             (start (plist-get (plist-get (plist-get location :range) :start) :line)))
        (when (and (equal (plist-get location :uri) uri) start (<= start line)
                   (or (null best-line) (> start best-line)))
          (setq best s best-line start))))
    (unless best  ;; a symbol of another file, named at point
      (setq best (cl-find-if (lambda (s) (equal (car (last (split-string (plist-get s :name) "\\."))) word))
                             symbols)))
    (if best (format "%s::%s" (plist-get best :containerName) (plist-get best :name)) (memory-lsp--here))))

(defun memory-lsp--first-line (lines)
  (cond ((vectorp lines) (if (> (length lines) 0) (aref lines 0) 1))
        ((numberp lines) lines)
        (t 1)))

(defun memory-lsp--show (title root rows)
  "Show ROWS, each (PATH LINE TEXT), under TITLE in a `grep-mode' buffer.
ROOT is the folder the paths are relative to."
  (let ((buffer (get-buffer-create "*memory-lsp*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (setq default-directory (file-name-as-directory root))
        (insert (format "-*- %s -*-\n" title))
        (dolist (row rows)
          (insert (format "%s:%d: %s\n" (nth 0 row) (nth 1 row) (replace-regexp-in-string "\n" " " (nth 2 row)))))
        (unless rows (insert "nothing found\n")))
      (grep-mode))
    (display-buffer buffer)
    rows))

;;;###autoload
(defun memory-lsp-impact (target)
  "What depends on TARGET: `path::Qualified.Name' or a path.
Interactively, the symbol at point by default."
  (interactive (let ((default (memory-lsp--target-at-point)))
                 (list (read-string (format "Impact of (%s): " default) nil nil default))))
  (let* ((result (memory-lsp-run "memory.impact" (list :target target)))
         (rows (append
                (cl-loop for d across (plist-get result :dependents)
                         collect (list (plist-get d :path) (memory-lsp--first-line (plist-get d :lines))
                                       (format "%s (depth %s; %s)" (or (plist-get d :symbol) (plist-get d :path))
                                               (plist-get d :depth)
                                               (mapconcat #'identity (plist-get d :edge_kinds) ", "))))
                ;; uses the graph has no edge for: a method read as an attribute (found by name), a
                ;; function or class used without a call where it is imported
                (let ((how (if (equal (plist-get result :reads_kind) "value") "uses it without a call"
                             "reads it; found by name")))
                  (cl-loop for r across (or (plist-get result :reads) [])
                           collect (let ((who (plist-get r :symbol)))  ; none: the file's module-level code
                                     (list (plist-get r :path) (memory-lsp--first-line (plist-get r :lines))
                                           (format "%s (%s)" (if (stringp who) who
                                                               (concat (plist-get r :path) " module level"))
                                                   how))))))))
    (memory-lsp--show (format "memory impact: %s" (plist-get result :target))
                      (memory-lsp--root (memory-lsp--conn)) rows)))

;;;###autoload
(defun memory-lsp-search (query)
  "Search memories and code for QUERY."
  (interactive (list (read-string "Search memories and code: " (thing-at-point 'symbol t))))
  (let* ((result (memory-lsp-run "memory.search" (list :query query)))
         (rows (cl-loop for r across (plist-get result :results)
                        for path = (plist-get r :path)
                        when path
                        collect (list path (memory-lsp--first-line (plist-get r :lines))
                                      (if (equal (plist-get r :kind) "memory")
                                          (format "[%s] %s" (plist-get r :type) (plist-get r :text))
                                        (or (plist-get r :symbol) (plist-get r :text) ""))))))
    (memory-lsp--show (format "memory search: %s" query) (memory-lsp--root (memory-lsp--conn)) rows)))

;;;###autoload
(defun memory-lsp-context (&optional query)
  "The memories and code facts that matter for this file (and QUERY), in a buffer."
  (interactive (list (let ((q (read-string "Context for (empty: this file): "))) (and (not (string-empty-p q)) q))))
  (let* ((arguments (append (list :file (vector (memory-lsp--here))) (and query (list :query query))))
         (text (plist-get (memory-lsp-run "memory.context" arguments) :text)))
    (with-current-buffer (get-buffer-create "*memory-lsp context*")
      (let ((inhibit-read-only t)) (erase-buffer) (insert text))
      (special-mode)
      (display-buffer (current-buffer)))
    text))

;;;###autoload
(defun memory-lsp-describe ()
  "The memories about the symbol at point (the hover), in a buffer."
  (interactive)
  (let ((text (or (memory-lsp-hover) "memory-lsp: nothing to say here")))
    (with-current-buffer (get-buffer-create "*memory-lsp hover*")
      (let ((inhibit-read-only t)) (erase-buffer) (insert text))
      (special-mode)
      (display-buffer (current-buffer)))
    text))

(provide 'memory-lsp-commands)
;;; memory-lsp-commands.el ends here
